import type { FastifyInstance } from 'fastify';
import { client } from './app';

/** A valid POST /requests body; overrides replace top-level fields. */
export function requestBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Tax documents 2024',
    items: [
      { type: 'UPLOAD', name: 'W-2', required: true },
      { type: 'QUESTION', name: 'Any dependents?', required: false },
    ],
    recipients: [{ first_name: 'Ana', last_name: 'Diaz', email: 'ana@example.com', auth_method: { type: 'NONE' } }],
    ...overrides,
  };
}

/** Creates a request through REST and returns its body (fails the test on anything but 200). */
export async function createRequest(app: FastifyInstance, apiKey: string, overrides: Record<string, unknown> = {}) {
  const response = await client(app, apiKey).post('/requests', requestBody(overrides));
  if (response.statusCode !== 200) throw new Error(`POST /requests answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

/** Adds a user (and an API key for it) through GraphQL, as the given ADMIN. */
export async function createUser(
  app: FastifyInstance,
  adminKey: string,
  input: { email: string; role?: 'ADMIN' | 'USER'; teamId?: string; firstName?: string },
) {
  const api = client(app, adminKey);
  const created = await api.graphql(
    `mutation ($input: UserCreateInput!) { userCreate(input: $input) { user { id } userErrors { field message } } }`,
    { input },
  );
  const user = created.data?.userCreate?.user;
  if (!user) throw new Error(`userCreate failed: ${JSON.stringify(created)}`);
  const key = await api.graphql(`mutation ($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) { secret } }`, {
    input: { userId: user.id },
  });
  return { userId: user.id as string, apiKey: key.data.apiKeyCreate.secret as string };
}

export async function createTeam(app: FastifyInstance, adminKey: string, name: string): Promise<string> {
  const result = await client(app, adminKey).graphql(
    `mutation ($input: TeamCreateInput!) { teamCreate(input: $input) { team { id } } }`,
    { input: { name } },
  );
  return result.data.teamCreate.team.id;
}

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Polls `check` until it returns something truthy (the worker records an attempt after the receiver answers). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
