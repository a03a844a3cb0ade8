import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/config';
import { openDatabase } from './kernel/db/database';
import { DATA_MODEL } from './modules';
import { AppError } from './kernel/errors/app-error';
import { systemClock } from './kernel/clock';
import { createApiKeyForEmail, createOrganization } from './modules/identity/identity.service';
import { SIGN_IN_LINK_MINUTES } from './modules/sessions/session.limits';
import { signInLinkForEmail } from './modules/sessions/session.service';

const USAGE = `Usage: npm run gather -- <command> [options]

Commands:
  org create --name NAME --admin-email EMAIL [--admin-first-name NAME] [--admin-last-name NAME]
      Creates an organization with an ADMIN user; prints {"organization_id", "user_id", "api_key"}.
  key create --email EMAIL [--name LABEL]
      Adds an API key for an existing user; prints {"user_id", "api_key"}.
  sign-in-link --email EMAIL [--next /app/...]
      Makes a link that signs an existing user in, in a browser, once within ${SIGN_IN_LINK_MINUTES} minutes (no mail is sent);
      prints {"user_id", "url", "expires_at"}.
  migrate
      Applies pending database migrations; prints {"applied": [...]}.

Works on DATABASE_URL, or on the embedded PostgreSQL under DATA_DIR (whether or not the service is running).
Results are JSON on stdout; progress goes to stderr.`;

type Options = Record<string, string | boolean | undefined>;

function need(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

async function run(argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'admin-email': { type: 'string' },
      'admin-first-name': { type: 'string' },
      'admin-last-name': { type: 'string' },
      email: { type: 'string' },
      next: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || !command) throw new UsageError('');
  if (!['org create', 'key create', 'sign-in-link', 'migrate'].includes(command))
    throw new UsageError(`unknown command "${command}"`);
  if (command === 'org create') {
    need(values, 'name');
    need(values, 'admin-email');
  }
  if (command === 'key create' || command === 'sign-in-link') need(values, 'email');

  const config = loadConfig();
  process.stderr.write(
    config.databaseUrl ? 'connecting to PostgreSQL…\n' : `opening the embedded PostgreSQL in ${config.dataDir}…\n`,
  );
  const database = await openDatabase(config, DATA_MODEL, { progress: (step) => process.stderr.write(`${step}…\n`) });
  try {
    if (database.migrations.length) process.stderr.write(`applied migrations: ${database.migrations.join(', ')}\n`);
    const { db } = database;
    switch (command) {
      case 'migrate':
        return { applied: database.migrations };
      case 'org create': {
        const { organization, user, apiKey } = await createOrganization(db, {
          name: values.name as string,
          adminEmail: values['admin-email'] as string,
          adminFirstName: values['admin-first-name'] as string | undefined,
          adminLastName: values['admin-last-name'] as string | undefined,
        });
        return { organization_id: organization.id, user_id: user.id, api_key: apiKey };
      }
      case 'sign-in-link': {
        const { user, url, expiresAt } = await signInLinkForEmail(
          db,
          { publicUrl: config.publicUrl, clock: systemClock },
          values.email as string,
          values.next as string | undefined,
        );
        return { user_id: user.id, url, expires_at: expiresAt.toISOString() };
      }
      default: {
        const { user, apiKey } = await createApiKeyForEmail(
          db,
          values.email as string,
          values.name as string | undefined,
        );
        return { user_id: user.id, api_key: apiKey };
      }
    }
  } finally {
    await database.close();
  }
}

run(process.argv.slice(2))
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  })
  .catch((err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `${err.message}\n\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (err instanceof AppError) {
      const details = err.userErrors.map((e) => `  - ${e.field.join('.')}: ${e.message}`).join('\n');
      process.stderr.write(`${err.message}${details ? `\n${details}` : ''}\n`);
    } else {
      // People read the message; the stack is for LOG_LEVEL=debug.
      const detail = err instanceof Error ? (process.env.LOG_LEVEL === 'debug' ? err.stack : err.message) : String(err);
      process.stderr.write(`${detail}\n`);
    }
    process.exit(1);
  });
