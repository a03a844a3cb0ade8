import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createTestApp, workerDatabaseUrl, type TestApp } from '../support/app';
import { baseEnv, freePort, ROOT, scratchDir, startService, TSX, type RunningService } from '../support/service';

function gather(args: string[], env: Record<string, string>) {
  const result = spawnSync(TSX, ['src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) };
}

describe('CLI (npm run gather)', () => {
  describe('on DATABASE_URL', () => {
    let t: TestApp;
    const env = () => ({ DATABASE_URL: workerDatabaseUrl(), GATHER_SECRET: 'x'.repeat(32) });
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());
    let userId: string;

    it('org create should print organization_id, user_id and a working api_key as JSON', async () => {
      const result = gather(['org', 'create', '--name', 'Umbrella', '--admin-email', 'alice@umbrella.test'], env());
      expect(result.status).toBe(0);
      const created = result.json();
      expect(created).toEqual({
        organization_id: expect.any(String),
        user_id: expect.any(String),
        api_key: expect.stringMatching(/^gth_/),
      });
      const whoami = await client(t.app, created.api_key).get('/whoami');
      expect(whoami.json()).toMatchObject({
        id: created.user_id,
        organization_id: created.organization_id,
        organization_name: 'Umbrella',
        role: 'ADMIN',
      });
      userId = created.user_id;
    });

    it('key create should print a working api_key for the user named by e-mail, in any case', async () => {
      const key = gather(['key', 'create', '--email', 'ALICE@umbrella.test', '--name', 'laptop'], env());
      expect(key.status).toBe(0);
      expect(key.json()).toEqual({ user_id: userId, api_key: expect.stringMatching(/^gth_/) });
      expect((await client(t.app, key.json().api_key).get('/whoami')).statusCode).toBe(200);
    });

    it('sign-in-link should print a link that signs the user named by e-mail in, once', async () => {
      const made = gather(['sign-in-link', '--email', 'Alice@Umbrella.test', '--next', '/app/requests'], {
        ...env(),
        PUBLIC_URL: 'https://gather.example',
      });
      expect(made.status).toBe(0);
      expect(made.json()).toEqual({
        user_id: userId,
        url: expect.stringMatching(
          /^https:\/\/gather\.example\/sign-in\/verify\?token=gsl_[A-Za-z0-9_-]{43}&next=%2Fapp%2Frequests$/,
        ),
        expires_at: expect.any(String),
      });
      const token = new URL(made.json().url).searchParams.get('token');
      const verify = () => t.app.inject({ method: 'POST', url: '/auth/verify', payload: { token } });
      const verified = await verify();
      expect(verified.statusCode).toBe(200);
      expect(verified.json().user.id).toBe(userId);
      expect((await verify()).statusCode).toBe(401);
      const unknown = gather(['sign-in-link', '--email', 'nobody@nowhere.test'], env());
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('User not found');
    });

    it('migrate should print the migrations it applied (none when up to date)', () => {
      const result = gather(['migrate'], env());
      expect(result.status).toBe(0);
      expect(result.json()).toEqual({ applied: [] });
    });

    // What to fix, on stderr, with a non-zero status: a process start each.
    describe('should explain what to fix, on stderr, with a non-zero status', () => {
      it('for a missing option (usage, 2)', () => {
        const usage = gather(['org', 'create', '--name', 'NoEmail'], env());
        expect(usage.status).toBe(2);
        expect(usage.stderr).toContain('--admin-email is required');
        expect(usage.stdout).toBe('');
      });
      it('for an unknown user', () => {
        const unknown = gather(['key', 'create', '--email', 'nobody@nowhere.test'], env());
        expect(unknown.status).toBe(1);
        expect(unknown.stderr).toContain('User not found');
      });
      it('for an admin e-mail already taken', () => {
        const taken = gather(['org', 'create', '--name', 'Again', '--admin-email', 'alice@umbrella.test'], env());
        expect(taken.status).toBe(1);
        expect(taken.stderr).toContain('already exists');
      });
      it('for a bad configuration', () => {
        const badConfig = gather(['migrate'], { ...env(), PORT: 'eighty' });
        expect(badConfig.status).toBe(1);
        expect(badConfig.stderr).toContain('PORT');
      });
    });
  });

  describe('on the embedded PostgreSQL, with and without the service running', () => {
    let dataDir: string;
    let service: RunningService | undefined;
    beforeAll(() => {
      dataDir = scratchDir('gather-cli-');
    });
    afterAll(async () => {
      await service?.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });

    // One story in steps, each a process start or two (an initdb in the first): a step per test keeps
    // each within the usual test time on a loaded machine.
    let env: Record<string, string>;

    it('should let the CLI alone start the embedded server, work, and stop it', async () => {
      env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
      expect(gather(['org', 'create', '--name', 'Solo', '--admin-email', 'solo@example.com'], env).status).toBe(0);
    });

    it('should start the service on that database, printing where it serves', async () => {
      service = await startService(env);
      expect(service.output()).toContain(`http://127.0.0.1:${service.port}/graphql`);
      expect(service.output()).toContain('/graphiql');
      // Not a fresh database (the CLI made an organization first), so no key is printed.
      expect(service.output()).not.toContain('First admin API key');
    });

    it('should let the CLI work beside the running service', async () => {
      const second = gather(['key', 'create', '--email', 'solo@example.com'], env);
      expect(second.status).toBe(0);
      const whoami = await fetch(`http://127.0.0.1:${service!.port}/whoami`, {
        headers: { authorization: `Bearer ${second.json().api_key}` },
      });
      expect(await whoami.json()).toMatchObject({ email: 'solo@example.com' });
    });

    it('should stop cleanly, the embedded server with it, so the CLI starts it again', async () => {
      expect(await service!.stop('SIGINT')).toBe(0);
      expect(service!.output()).toContain('stopped');
      service = undefined;
      expect(gather(['migrate'], env).status).toBe(0);
    });

    it('should refuse a DATA_DIR the server cannot reach, saying what to fix', async () => {
      const hidden = mkdtempSync(join(tmpdir(), 'gather-private-'));
      const result = gather(['migrate'], {
        DATA_DIR: join(hidden, 'data'),
        EMBEDDED_PG_PORT: String(await freePort()),
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('chmod o+x');
      rmSync(hidden, { recursive: true, force: true });
    });

    it('should create the default organization and print its key on a fresh database', async () => {
      const freshDir = scratchDir('gather-fresh-');
      const fresh = await startService({ DATA_DIR: freshDir, EMBEDDED_PG_PORT: String(await freePort()) });
      try {
        const key = /First admin API key \(shown once, store it now\): (\S+)/.exec(fresh.output())?.[1];
        expect(key).toMatch(/^gth_/);
        const whoami = await fetch(`http://127.0.0.1:${fresh.port}/whoami`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(await whoami.json()).toMatchObject({ role: 'ADMIN', organization_name: 'Default organization' });
      } finally {
        await fresh.stop();
        rmSync(freshDir, { recursive: true, force: true });
      }
    });
  });
});
