import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as {
    __GATHER_PG__?: { stop(): Promise<void> };
    __GATHER_TEST_DATABASES__?: { url: string; names: string[] };
  };
  const databases = state.__GATHER_TEST_DATABASES__;
  if (databases) {
    const admin = new Client({ connectionString: databases.url });
    await admin.connect();
    try {
      for (const name of databases.names) await admin.query(`drop database if exists ${name} with (force)`);
    } finally {
      await admin.end();
    }
  }
  await state.__GATHER_PG__?.stop();
}
