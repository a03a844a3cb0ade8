import { Client } from 'pg';

// Connections of the bench's own (setup and administration), to whichever PostgreSQL it runs on.

/** `url` naming `database` instead of its own. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `work` on a connection of its own to `url`, ended after it. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
