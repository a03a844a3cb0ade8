import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import envSchema from 'env-schema';
import { SHARED_CACHE_TTL_SECONDS } from '../kernel/limits';
import {
  DEFAULT_UNFINISHED_UPLOAD_BYTES,
  DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
} from '../modules/portal/portal.uploads.limits';
import {
  DEFAULT_JOB_CONCURRENCY,
  DEFAULT_JOB_POLL_MS,
  MAX_JOB_CONCURRENCY,
  MAX_JOB_POLL_MS,
  MIN_JOB_POLL_MS,
  DEFAULT_MAX_QUERY_ALIASES,
  DEFAULT_RATE_LIMIT_ADDRESS,
  DEFAULT_RATE_LIMIT_API_KEY,
  DEFAULT_RATE_LIMIT_LINK,
} from '../kernel/limits';

// The one place that reads process.env. Every variable has a type, a default where one is safe,
// and a description; the configuration table in docs/operations.md mirrors this schema.
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const STORAGE_DRIVERS = ['local', 's3'] as const;
type StorageDriver = (typeof STORAGE_DRIVERS)[number];

/** Where file bytes live. */
export type StorageConfig =
  | { driver: 'local'; dir: string }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      endpoint?: string;
      credentials?: { accessKeyId: string; secretAccessKey: string };
      forcePathStyle: boolean;
    };

export const ENV_SCHEMA = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port of the service' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'interface to listen on (0.0.0.0 for all)' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: 'PostgreSQL URL; unset starts an embedded PostgreSQL under DATA_DIR',
    }),
  ),
  DATA_DIR: Type.String({
    minLength: 1,
    default: '.data',
    description: 'directory for the embedded database, files and the generated secret',
  }),
  EMBEDDED_PG_PORT: Type.Integer({
    minimum: 1,
    maximum: 65535,
    default: 5433,
    description: 'port of the embedded PostgreSQL (loopback only)',
  }),
  PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description: 'base URL used to build recipient links; default http://localhost:PORT',
    }),
  ),
  LOG_LEVEL: Type.Unsafe<LogLevel>({
    type: 'string',
    enum: [...LOG_LEVELS],
    default: 'info',
    description: 'pino log level',
  }),
  NODE_ENV: Type.String({
    default: 'development',
    description: '"production" turns GraphiQL and GraphQL introspection off',
  }),
  GRAPHIQL: Type.Optional(
    Type.Boolean({ description: 'serve the in-browser GraphQL IDE at /graphiql; default true outside production' }),
  ),
  GRAPHQL_INTROSPECTION: Type.Optional(
    Type.Boolean({
      description:
        'answer `__schema` and `__type` queries, and suggest names in errors ("Did you mean …"); default true outside production',
    }),
  ),
  GRAPHQL_MAX_ALIASES: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: DEFAULT_MAX_QUERY_ALIASES,
    description: 'aliases one GraphQL operation, or a batch of them together, may hold',
  }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 60,
    description: 'length of a rate-limit window',
  }),
  RATE_LIMIT_API_KEY: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: DEFAULT_RATE_LIMIT_API_KEY,
    description: 'requests one API key may make per window, all instances together (0: no limit)',
  }),
  RATE_LIMIT_LINK: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: DEFAULT_RATE_LIMIT_LINK,
    description: 'requests per window on one recipient link, or with one recipient session (0: no limit)',
  }),
  RATE_LIMIT_ADDRESS: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: DEFAULT_RATE_LIMIT_ADDRESS,
    description: 'requests per window from one client address without a credential (0: no limit)',
  }),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description:
      'take the client address from X-Forwarded-For (behind a load balancer), for the per-address rate limit',
  }),
  GATHER_ADMIN_API_KEY: Type.Optional(
    Type.String({ minLength: 32, description: 'API key of the first admin, used verbatim on a fresh database' }),
  ),
  GATHER_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      description: 'server secret for recipient links; default generated into DATA_DIR/secret.key',
    }),
  ),
  BODY_LIMIT: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 1024 * 1024,
    description: 'largest JSON body in bytes (413 above)',
  }),
  DB_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'PostgreSQL connections per instance',
  }),
  METRICS_TOKEN: Type.Optional(
    Type.String({ minLength: 16, description: 'bearer token of /metrics; unset, /metrics answers 404' }),
  ),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120000,
    default: 10000,
    description: 'time allowed for in-flight requests on shutdown',
  }),
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(
    Type.Boolean({
      description:
        'allow webhook endpoints on private, loopback or link-local addresses and plain http; default true outside production',
    }),
  ),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60000,
    default: 10000,
    description: 'time a webhook endpoint has to answer with a 2xx',
  }),
  WEBHOOK_SECRET_GRACE_HOURS: Type.Number({
    minimum: 0,
    maximum: 720,
    default: 24,
    description: 'hours a rotated-out signing secret still signs deliveries',
  }),
  WEBHOOK_DISABLE_AFTER_HOURS: Type.Number({
    minimum: 1,
    maximum: 2160,
    default: 120,
    description: 'hours of failures in a row after which an endpoint is disabled',
  }),
  STORAGE_DRIVER: Type.Unsafe<StorageDriver>({
    type: 'string',
    enum: [...STORAGE_DRIVERS],
    default: 'local',
    description: 'where file bytes go: local (DATA_DIR/files) or s3',
  }),
  S3_BUCKET: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 63,
      description: 'bucket of the s3 driver (required with STORAGE_DRIVER=s3)',
    }),
  ),
  S3_REGION: Type.String({ minLength: 1, default: 'us-east-1', description: 'region of the s3 driver' }),
  S3_ENDPOINT: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s]+$', description: 'endpoint of an S3-compatible service; unset uses AWS' }),
  ),
  S3_ACCESS_KEY_ID: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'access key of the s3 driver; unset uses the AWS default credential chain',
    }),
  ),
  S3_SECRET_ACCESS_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'secret key of the s3 driver, given with S3_ACCESS_KEY_ID' }),
  ),
  S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description: 'address the bucket in the path (most S3-compatible services) rather than the host name',
  }),
  // Sizes are stored and exposed as 32-bit integers (GraphQL Int), hence the ceiling of 2 GiB - 1.
  MAX_UPLOAD_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 2147483647,
    default: 256 * 1024 * 1024,
    description: 'largest file upload in bytes (413 above)',
  }),
  UNFINISHED_UPLOAD_BYTES_ORGANIZATION: Type.Integer({
    minimum: 1024,
    maximum: 2 ** 50,
    default: DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
    description:
      "declared bytes (Upload-Length) of one organization's unfinished resumable uploads together (413 for one larger, 429 while others fill it)",
  }),
  UNFINISHED_UPLOAD_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 2 ** 50,
    default: DEFAULT_UNFINISHED_UPLOAD_BYTES,
    description:
      'declared bytes (Upload-Length) of all unfinished resumable uploads together, every organization and instance (413 for one larger, 429 while others fill it)',
  }),
  EXACT_COUNT_LIMIT: Type.Integer({
    minimum: 0,
    maximum: 100_000_000,
    default: 10_000,
    description:
      'rows a list counts exactly for totalCount; past it totalCount is the planner estimate and totalCountEstimated is true',
  }),
  MAX_FILES_PER_ITEM: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'attachments, and separately submitted documents, one item (or one request) may hold',
  }),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://[^\\s]+$',
      description: 'mail server for notifications, smtp:// or smtps://; unset keeps messages in the notification table',
    }),
  ),
  MAIL_FROM: Type.String({
    minLength: 3,
    default: 'Gather <no-reply@localhost>',
    description: 'sender of notification mail',
  }),
  TWILIO_ACCOUNT_SID: Type.Optional(
    Type.String({
      pattern: '^AC[0-9a-fA-F]{32}$',
      description: 'Twilio account that sends SMS (with TWILIO_AUTH_TOKEN); unset keeps SMS in the notification table',
    }),
  ),
  TWILIO_AUTH_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: "auth token of TWILIO_ACCOUNT_SID: the API's password, and the key of its callbacks' signatures",
    }),
  ),
  TWILIO_FROM: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'sender of SMS: a Twilio phone number (E.164) or alphanumeric sender id',
    }),
  ),
  TWILIO_MESSAGING_SERVICE_SID: Type.Optional(
    Type.String({
      pattern: '^MG[0-9a-fA-F]{32}$',
      description: 'Twilio Messaging Service that picks the sender, in place of TWILIO_FROM',
    }),
  ),
  TWILIO_API_URL: Type.String({
    pattern: '^https?://[^\\s]+$',
    default: 'https://api.twilio.com',
    description: "base URL of Twilio's REST API (a test double's elsewhere)",
  }),
  EXPIRATION_WARNING_DAYS: Type.Integer({
    minimum: 0,
    maximum: 365,
    default: 3,
    description: 'days before a request expires that its recipients are warned (0: on the day)',
  }),
  SHARED_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: SHARED_CACHE_TTL_SECONDS,
    description:
      "seconds an instance keeps an API key's caller, an organization's settings and users between requests, at most (any change on any instance empties them at once); 0: read on every request",
  }),
  JOB_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: MAX_JOB_CONCURRENCY,
    default: DEFAULT_JOB_CONCURRENCY,
    description: 'jobs (webhook deliveries, mail, timed work, event consumers) an instance runs at once',
  }),
  JOB_POLL_MS: Type.Integer({
    minimum: MIN_JOB_POLL_MS,
    maximum: MAX_JOB_POLL_MS,
    default: DEFAULT_JOB_POLL_MS,
    description:
      'milliseconds between looks for jobs that came due (retries, timed work); new jobs are taken at once, whatever it is',
  }),
  SIGNING_P12_PATH: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'PKCS#12 file (certificate and private key) that signs every e-signed PDF; unset: each organization gets a generated self-signed certificate',
    }),
  ),
  SIGNING_P12_PASSPHRASE: Type.Optional(Type.String({ description: 'passphrase of SIGNING_P12_PATH (default empty)' })),
});

type Env = Static<typeof ENV_SCHEMA>;

export type Config = {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  embeddedPgPort: number;
  publicUrl: string;
  logLevel: LogLevel;
  production: boolean;
  graphql: GraphQLSettings;
  rateLimits: RateLimitSettings;
  trustProxy: boolean;
  adminApiKey?: string;
  secret: string;
  bodyLimit: number;
  dbPoolMax: number;
  shutdownTimeoutMs: number;
  /** Bearer token of /metrics; unset, there is no /metrics. */
  metricsToken?: string;
  storage: StorageConfig;
  maxUploadBytes: number;
  unfinishedUploadBytes: UnfinishedUploadBytes;
  maxFilesPerItem: number;
  /** Rows a list counts exactly for `totalCount` (see pagination.ts, `countRows`). */
  exactCountLimit: number;
  webhooks: WebhookSettings;
  mail: MailSettings;
  sms: SmsSettings;
  signing: SigningSettings;
  /** Days before `expiration_date` that recipients get the expiration warning. */
  expirationWarningDays: number;
  /**
   * How long an instance keeps a cached API key's caller, organization's settings or user, at most (SHARED_CACHE_SECONDS).
   */
  sharedCacheSeconds: number;
  /** Jobs this instance runs at once (JOB_CONCURRENCY). */
  jobConcurrency: number;
  /** Milliseconds between looks for jobs that came due (JOB_POLL_MS). */
  jobPollMs: number;
};

/** Declared bytes of unfinished resumable uploads held at once, per organization and in all. */
export type UnfinishedUploadBytes = { organization: number; total: number };

export type GraphQLSettings = {
  graphiql: boolean;
  /** Whether `__schema` and `__type` may be asked for, and errors suggest names ("Did you mean …"). */
  introspection: boolean;
  /** Aliases an operation, or a batch's operations together, may hold. */
  maxAliases: number;
};

/** Requests per window, per kind of caller; 0 is no limit. */
export type RateLimitSettings = {
  windowMs: number;
  apiKey: number;
  link: number;
  address: number;
};

export type SigningSettings = {
  /** A configured PKCS#12 signs for every organization; unset, each gets a generated certificate. */
  p12?: { bytes: Buffer; passphrase: string };
};

export type MailSettings = {
  /** Unset: messages are rendered and kept in the notification table, not sent. */
  smtpUrl?: string;
  from: string;
};

/** Where SMS go: Twilio's Messages API when configured, else the log (kept in the notification table). */
export type SmsSettings = { twilio?: TwilioSettings };

export type TwilioSettings = {
  accountSid: string;
  authToken: string;
  /** The sender: a number or alphanumeric id, or a Messaging Service that picks one (exactly one of the two). */
  sender: { from: string } | { messagingServiceSid: string };
  /** Base URL of the REST API, without a trailing slash. */
  apiUrl: string;
};

export type WebhookSettings = {
  allowPrivate: boolean;
  timeoutMs: number;
  secretGraceMs: number;
  disableAfterMs: number;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type EnvError = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };

function describeProblem(error: EnvError, env: NodeJS.ProcessEnv): string {
  const name = error.instancePath.replace(/^\//, '') || String(error.params.missingProperty ?? '');
  const schema = (
    ENV_SCHEMA.properties as Record<
      string,
      { description?: string; minimum?: number; maximum?: number; minLength?: number }
    >
  )[name];
  const got = env[name] === undefined ? '' : ` (got ${JSON.stringify(env[name])})`;
  const rule: Record<string, string> = {
    type: `must be ${error.params.type === 'integer' ? 'a whole number' : `a ${String(error.params.type)}`}`,
    enum: `must be one of ${((error.params.allowedValues as string[] | undefined) ?? []).join(', ')}`,
    minimum: `must be between ${schema?.minimum} and ${schema?.maximum}`,
    maximum: `must be between ${schema?.minimum} and ${schema?.maximum}`,
    minLength: `must be at least ${schema?.minLength} characters`,
    pattern: 'is not in the expected form',
  };
  return `${name} ${rule[error.keyword] ?? error.message ?? 'is invalid'}${got}${schema?.description ? `: ${schema.description}` : ''}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  let parsed: Env;
  try {
    parsed = envSchema<Env>({ schema: ENV_SCHEMA, data: env, env: false, dotenv: false });
  } catch (err) {
    const errors = (err as { errors?: EnvError[] }).errors;
    if (!errors) throw err;
    const lines = [...new Set(errors.map((e) => describeProblem(e, env)))];
    throw new ConfigError(lines);
  }
  const dataDir = resolve(parsed.DATA_DIR);
  return {
    storage: storageConfig(parsed, dataDir),
    maxUploadBytes: parsed.MAX_UPLOAD_BYTES,
    unfinishedUploadBytes: {
      organization: parsed.UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
      total: parsed.UNFINISHED_UPLOAD_BYTES,
    },
    maxFilesPerItem: parsed.MAX_FILES_PER_ITEM,
    exactCountLimit: parsed.EXACT_COUNT_LIMIT,
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    dataDir,
    embeddedPgPort: parsed.EMBEDDED_PG_PORT,
    publicUrl: (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, ''),
    logLevel: parsed.LOG_LEVEL as LogLevel,
    production: parsed.NODE_ENV === 'production',
    graphql: {
      graphiql: parsed.GRAPHIQL ?? parsed.NODE_ENV !== 'production',
      introspection: parsed.GRAPHQL_INTROSPECTION ?? parsed.NODE_ENV !== 'production',
      maxAliases: parsed.GRAPHQL_MAX_ALIASES,
    },
    rateLimits: {
      windowMs: parsed.RATE_LIMIT_WINDOW_SECONDS * 1000,
      apiKey: parsed.RATE_LIMIT_API_KEY,
      link: parsed.RATE_LIMIT_LINK,
      address: parsed.RATE_LIMIT_ADDRESS,
    },
    trustProxy: parsed.TRUST_PROXY,
    adminApiKey: parsed.GATHER_ADMIN_API_KEY,
    secret: parsed.GATHER_SECRET ?? readOrCreateSecret(dataDir),
    bodyLimit: parsed.BODY_LIMIT,
    dbPoolMax: parsed.DB_POOL_MAX,
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    metricsToken: parsed.METRICS_TOKEN,
    webhooks: {
      // API-DECISIONS: development and tests deliver to local receivers; production does not.
      allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE ?? parsed.NODE_ENV !== 'production',
      timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
      secretGraceMs: parsed.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000,
      disableAfterMs: parsed.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    },
    mail: { smtpUrl: parsed.SMTP_URL, from: parsed.MAIL_FROM },
    sms: smsConfig(parsed),
    signing: signingConfig(parsed),
    expirationWarningDays: parsed.EXPIRATION_WARNING_DAYS,
    sharedCacheSeconds: parsed.SHARED_CACHE_SECONDS,
    jobConcurrency: parsed.JOB_CONCURRENCY,
    jobPollMs: parsed.JOB_POLL_MS,
  };
}

// The file is read at start, so a wrong path stops the start rather than the first signature.
function signingConfig(env: Env): SigningSettings {
  if (env.SIGNING_P12_PATH === undefined) {
    if (env.SIGNING_P12_PASSPHRASE !== undefined)
      throw new ConfigError(['SIGNING_P12_PASSPHRASE is set without SIGNING_P12_PATH: the passphrase of which file?']);
    return {};
  }
  try {
    return { p12: { bytes: readFileSync(env.SIGNING_P12_PATH), passphrase: env.SIGNING_P12_PASSPHRASE ?? '' } };
  } catch (err) {
    throw new ConfigError([
      `SIGNING_P12_PATH cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}, got ${JSON.stringify(env.SIGNING_P12_PATH)}): PKCS#12 file that signs e-signed PDFs`,
    ]);
  }
}

// Twilio's variables come together: an account is nothing without its token and a sender.
function smsConfig(env: Env): SmsSettings {
  const given = [env.TWILIO_AUTH_TOKEN, env.TWILIO_FROM, env.TWILIO_MESSAGING_SERVICE_SID].some((v) => v !== undefined);
  if (!env.TWILIO_ACCOUNT_SID) {
    if (given)
      throw new ConfigError([
        'TWILIO_ACCOUNT_SID is required with the other TWILIO_ variables: the account that sends SMS',
      ]);
    return {};
  }
  const problems: string[] = [];
  if (!env.TWILIO_AUTH_TOKEN) problems.push('TWILIO_AUTH_TOKEN is required with TWILIO_ACCOUNT_SID');
  if (Boolean(env.TWILIO_FROM) === Boolean(env.TWILIO_MESSAGING_SERVICE_SID))
    problems.push('Give exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID: the sender of SMS');
  if (problems.length) throw new ConfigError(problems);
  return {
    twilio: {
      accountSid: env.TWILIO_ACCOUNT_SID,
      authToken: env.TWILIO_AUTH_TOKEN!,
      sender: env.TWILIO_FROM ? { from: env.TWILIO_FROM } : { messagingServiceSid: env.TWILIO_MESSAGING_SERVICE_SID! },
      apiUrl: env.TWILIO_API_URL.replace(/\/+$/, ''),
    },
  };
}

// Rules that join several variables, which the schema alone cannot say.
function storageConfig(env: Env, dataDir: string): StorageConfig {
  if (env.STORAGE_DRIVER === 'local') return { driver: 'local', dir: join(dataDir, 'files') };
  const problems: string[] = [];
  if (!env.S3_BUCKET) problems.push('S3_BUCKET is required when STORAGE_DRIVER is s3: bucket of the s3 driver');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problems.push(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be given together (or neither, for the AWS default credential chain)',
    );
  }
  if (problems.length) throw new ConfigError(problems);
  return {
    driver: 's3',
    bucket: env.S3_BUCKET!,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    credentials: env.S3_ACCESS_KEY_ID
      ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY! }
      : undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
  };
}

// A single instance on the embedded default needs no set-up, so the secret is generated once and kept
// beside the data; several instances behind a load balancer must share GATHER_SECRET instead.
function readOrCreateSecret(dataDir: string): string {
  const path = join(dataDir, 'secret.key');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
