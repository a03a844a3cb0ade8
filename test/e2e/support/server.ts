import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Browser } from 'playwright-core';
import { client, createTestApp, createTenant, type Tenant, type TestApp } from '../../support/app';
import { startSmtpServer } from '../../support/smtp';
import { launchBrowser } from './browser';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
  });
}

export type ListeningApp = TestApp & {
  origin: string;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  tenant: Tenant;
  stop(): Promise<void>;
};

/**
 * The whole service listening on loopback, its recipient links on that address, mail sent (by the
 * running notification worker) to an SMTP server in this process, and an organization with its admin
 * (Olga Ops).
 */
export async function startListeningApp(): Promise<ListeningApp> {
  const smtp = await startSmtpServer();
  // The links in mails must point at the listening address, which is known only once a port is chosen.
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const test = await createTestApp(
    { publicUrl: origin, mail: { smtpUrl: smtp.url, from: 'Gather <no-reply@gather.test>' } },
    // E2E_LOG=error (or any pino level) shows the service's log while a walk runs.
    {
      runJobs: true,
      ...(process.env.E2E_LOG && { loggerInstance: pino({ level: process.env.E2E_LOG }) as never }),
    },
  );
  await test.app.listen({ port, host: '127.0.0.1' });
  const tenant = await createTenant(test.db, 'Acme Accounting');
  // The owner as recipients see it: a name, not the generated address of a test admin.
  const named = await client(test.app, tenant.apiKey).graphql(
    `mutation ($id: ID!, $input: UserUpdateInput!) { userUpdate(id: $id, input: $input) { userErrors { message } } }`,
    { id: tenant.userId, input: { firstName: 'Olga', lastName: 'Ops' } },
  );
  if (named.errors || named.data.userUpdate.userErrors.length)
    throw new Error(`userUpdate failed: ${JSON.stringify(named)}`);
  return {
    ...test,
    origin,
    smtp,
    tenant,
    async stop() {
      await test.close();
      await smtp.close();
    },
  };
}

/**
 * The listening service and a browser for one test file, started before its tests and stopped after
 * them; the returned object's fields are set once `beforeAll` has run.
 */
export function useAppAndBrowser(): { app: ListeningApp; browser: Browser } {
  const world = {} as { app: ListeningApp; browser: Browser };
  beforeAll(async () => {
    world.app = await startListeningApp();
    world.browser = await launchBrowser();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.app?.stop();
  });
  return world;
}
