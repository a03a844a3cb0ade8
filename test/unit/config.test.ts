import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

const base = { GATHER_SECRET: 's'.repeat(32), DATA_DIR: '/tmp/gather-config-test' };

describe('loadConfig', () => {
  it('should apply the documented defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      embeddedPgPort: 5433,
      publicUrl: 'http://localhost:3000',
      logLevel: 'info',
      production: false,
      bodyLimit: 1048576,
      dbPoolMax: 10,
      shutdownTimeoutMs: 10000,
      mail: { smtpUrl: undefined, from: 'Gather <no-reply@localhost>' },
    });
  });

  it('should read every variable', () => {
    const config = loadConfig({
      ...base,
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/gather',
      PUBLIC_URL: 'https://gather.example.com/',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      BODY_LIMIT: '2048',
      DB_POOL_MAX: '4',
      GATHER_ADMIN_API_KEY: 'k'.repeat(40),
      SMTP_URL: 'smtps://mailer:p%40ss@smtp.example.com:465',
      MAIL_FROM: 'Acme <requests@acme.example>',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u:p@db:5432/gather',
      publicUrl: 'https://gather.example.com',
      logLevel: 'debug',
      production: true,
      bodyLimit: 2048,
      dbPoolMax: 4,
      adminApiKey: 'k'.repeat(40),
      mail: { smtpUrl: 'smtps://mailer:p%40ss@smtp.example.com:465', from: 'Acme <requests@acme.example>' },
    });
  });

  it('should turn GraphiQL and introspection off in production unless told, and read the rate limits', () => {
    expect(loadConfig(base)).toMatchObject({
      graphql: { graphiql: true, introspection: true, maxAliases: 15 },
      rateLimits: { windowMs: 60_000, apiKey: 3000, link: 600, address: 300 },
      trustProxy: false,
    });
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).graphql).toEqual({
      graphiql: false,
      introspection: false,
      maxAliases: 15,
    });
    expect(
      loadConfig({
        ...base,
        NODE_ENV: 'production',
        GRAPHIQL: 'true',
        GRAPHQL_INTROSPECTION: 'true',
        GRAPHQL_MAX_ALIASES: '300',
      }).graphql,
    ).toEqual({ graphiql: true, introspection: true, maxAliases: 300 });
    const limited = loadConfig({
      ...base,
      RATE_LIMIT_WINDOW_SECONDS: '10',
      RATE_LIMIT_API_KEY: '0',
      RATE_LIMIT_LINK: '5',
      RATE_LIMIT_ADDRESS: '7',
      TRUST_PROXY: 'true',
    });
    expect(limited).toMatchObject({
      rateLimits: { windowMs: 10_000, apiKey: 0, link: 5, address: 7 },
      trustProxy: true,
    });
    expect(() => loadConfig({ ...base, RATE_LIMIT_API_KEY: '-1' })).toThrow(
      /RATE_LIMIT_API_KEY must be between 0 and 10000000/,
    );
  });

  it('should name each bad variable, its value and what it must be', () => {
    let error: unknown;
    try {
      loadConfig({
        ...base,
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        LOG_LEVEL: 'loud',
        PUBLIC_URL: 'ftp://x',
        GATHER_ADMIN_API_KEY: 'short',
        SMTP_URL: 'mail.example.com:25',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'PUBLIC_URL', 'GATHER_ADMIN_API_KEY', 'SMTP_URL'])
      expect(problems).toContain(name);
    expect(problems).toContain('"eighty"');
    expect(problems).toContain('HTTP port');
  });

  it('should send SMS through Twilio when its account, token and one sender are given, and refuse them apart', () => {
    const account = { TWILIO_ACCOUNT_SID: `AC${'a'.repeat(32)}`, TWILIO_AUTH_TOKEN: 't'.repeat(32) };
    expect(loadConfig(base).sms).toEqual({});
    expect(loadConfig({ ...base, ...account, TWILIO_FROM: '+15005550006' }).sms).toEqual({
      twilio: {
        accountSid: account.TWILIO_ACCOUNT_SID,
        authToken: account.TWILIO_AUTH_TOKEN,
        sender: { from: '+15005550006' },
        apiUrl: 'https://api.twilio.com',
      },
    });
    expect(
      loadConfig({
        ...base,
        ...account,
        TWILIO_MESSAGING_SERVICE_SID: `MG${'b'.repeat(32)}`,
        TWILIO_API_URL: 'http://127.0.0.1:9999/',
      }).sms.twilio,
    ).toMatchObject({ sender: { messagingServiceSid: `MG${'b'.repeat(32)}` }, apiUrl: 'http://127.0.0.1:9999' });
    expect(() => loadConfig({ ...base, ...account })).toThrow(
      /exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID/,
    );
    expect(() =>
      loadConfig({ ...base, ...account, TWILIO_FROM: '+1', TWILIO_MESSAGING_SERVICE_SID: `MG${'b'.repeat(32)}` }),
    ).toThrow(/exactly one/);
    expect(() => loadConfig({ ...base, TWILIO_ACCOUNT_SID: account.TWILIO_ACCOUNT_SID, TWILIO_FROM: '+1' })).toThrow(
      /TWILIO_AUTH_TOKEN is required/,
    );
    expect(() => loadConfig({ ...base, TWILIO_FROM: '+15005550006' })).toThrow(/TWILIO_ACCOUNT_SID is required/);
    expect(() => loadConfig({ ...base, ...account, TWILIO_ACCOUNT_SID: 'AC123', TWILIO_FROM: '+1' })).toThrow(
      /TWILIO_ACCOUNT_SID is not in the expected form/,
    );
  });

  it('should read the signing PKCS#12 at start, and refuse a path it cannot read or a passphrase without a path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gather-config-p12-'));
    try {
      const path = join(dir, 'signer.p12');
      writeFileSync(path, Buffer.from([0x30, 0x82, 0x01, 0x02]));
      expect(loadConfig(base).signing).toEqual({});
      expect(loadConfig({ ...base, SIGNING_P12_PATH: path, SIGNING_P12_PASSPHRASE: 'pass' }).signing).toEqual({
        p12: { bytes: Buffer.from([0x30, 0x82, 0x01, 0x02]), passphrase: 'pass' },
      });
      expect(loadConfig({ ...base, SIGNING_P12_PATH: path }).signing.p12?.passphrase).toBe('');
      expect(() => loadConfig({ ...base, SIGNING_P12_PATH: join(dir, 'missing.p12') })).toThrow(
        /SIGNING_P12_PATH cannot be read \(ENOENT/,
      );
      expect(() => loadConfig({ ...base, SIGNING_P12_PASSPHRASE: 'pass' })).toThrow(
        /SIGNING_P12_PASSPHRASE is set without SIGNING_P12_PATH/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
