import type { CloudStorageConnectInput } from '../../generated/resolvers-types';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { InputCheck } from '../../kernel/validation/input-check';
import { isAdmin } from '../identity/viewer';
import { CONNECTION_PROVIDERS, type ConnectionProvider } from '../requests/request.enums';
import { PLANNED, queuePlanned, type PlannedRow } from '../schedule/schedule.planning';
import { checkEndpoint } from '../webhooks/webhook.endpoint';
import { CloudStorageConnection, COPY_JOB_KIND, type CloudStorageConnectionRow } from './cloud-storage.entities';
import { MAX_ACCESS_KEY_ID, MAX_REGION, MAX_S3_ENDPOINT, MAX_SECRET_ACCESS_KEY } from './cloud-storage.limits';
import { describeS3Error, probeBucket, sealCredentials, type S3Location } from './cloud-storage.s3';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings' | 'log'>;

export type CloudStorageStatus = 'CONNECTED' | 'AVAILABLE' | 'UNAVAILABLE';

/** One provider as the organization sees it; `connection` carries no secret (the keys stay sealed). */
export type CloudStorageView = {
  provider: ConnectionProvider;
  status: CloudStorageStatus;
  reason: string | null;
  connection: Omit<CloudStorageConnectionRow, 'sealedCredentials'> | null;
};

const OAUTH =
  'needs an OAuth sign-in on the internet, which this deployment does not offer; connect an S3-compatible bucket instead';

/** Why each provider that cannot be connected here cannot. */
const UNAVAILABLE: Partial<Record<ConnectionProvider, string>> = {
  GOOGLE_DRIVE: `Google Drive ${OAUTH}`,
  DROPBOX: `Dropbox ${OAUTH}`,
  BOX: `Box ${OAUTH}`,
  ONEDRIVE: `OneDrive ${OAUTH}`,
  SHAREPOINT: `SharePoint ${OAUTH}`,
};

function viewOf(provider: ConnectionProvider, connection: CloudStorageConnectionRow | undefined): CloudStorageView {
  if (provider === 'SERVICE') return { provider, status: 'CONNECTED', reason: null, connection: null };
  const reason = UNAVAILABLE[provider];
  if (reason) return { provider, status: 'UNAVAILABLE', reason, connection: null };
  if (!connection) return { provider, status: 'AVAILABLE', reason: null, connection: null };
  const { sealedCredentials: _sealed, ...visible } = connection;
  return { provider, status: 'CONNECTED', reason: null, connection: visible };
}

const connectionsOf = (ctx: Pick<Ctx, 'db'>, organizationId: string) =>
  ctx.db.records(CloudStorageConnection, 'select * from cloud_storage_connection where organization_id = ?', [
    organizationId,
  ]);

/** Every provider with its state for the caller's organization (one statement). */
export async function listCloudStorage(ctx: Pick<Ctx, 'db' | 'viewer'>): Promise<CloudStorageView[]> {
  const connections = await connectionsOf(ctx, ctx.viewer.organizationId);
  return CONNECTION_PROVIDERS.map((provider) =>
    viewOf(
      provider,
      connections.find((c) => c.provider === provider),
    ),
  );
}

/** Refuses what cannot be connected or disconnected, before any input is looked at; and non-ADMINs. */
function requireConnectable(ctx: Ctx, provider: ConnectionProvider, verb: 'connected' | 'disconnected'): void {
  if (!isAdmin(ctx.viewer)) throw AppError.forbidden("Only an ADMIN may change the organization's cloud storage");
  if (provider === 'SERVICE')
    throw AppError.validation([
      { field: [], message: `Gather's own storage is always connected; it cannot be ${verb}`, code: 'INVALID' },
    ]);
  const reason = UNAVAILABLE[provider];
  if (reason)
    throw AppError.validation([{ field: [], message: `${provider} cannot be ${verb}: ${reason}`, code: 'INVALID' }]);
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[A-Za-z0-9_-]+$/;

/**
 * Connects the organization's S3-compatible bucket (in place of one connected before): the input is
 * checked, then a probe object is written and deleted with the given keys; a bucket that refuses is a
 * 422 naming what it answered. The keys are stored sealed and never answered.
 */
export async function connectCloudStorage(
  ctx: Ctx,
  provider: ConnectionProvider,
  input: CloudStorageConnectInput,
): Promise<CloudStorageView> {
  requireConnectable(ctx, provider, 'connected');
  const check = new InputCheck();
  check.text(['bucket'], input.bucket, { min: 1, max: 63, required: true });
  if (input.bucket && !BUCKET.test(input.bucket))
    check.add(['bucket'], 'A bucket name is 3 to 63 lower-case letters, digits, dots and hyphens', 'INVALID');
  check.text(['region'], input.region, { min: 1, max: MAX_REGION, required: true });
  if (input.region && !REGION.test(input.region))
    check.add(['region'], 'A region is letters, digits, hyphens and underscores (such as us-east-1)', 'INVALID');
  check.text(['accessKeyId'], input.accessKeyId, { min: 1, max: MAX_ACCESS_KEY_ID, required: true });
  check.text(['secretAccessKey'], input.secretAccessKey, { min: 1, max: MAX_SECRET_ACCESS_KEY, required: true });
  if (input.endpoint != null) {
    check.text(['endpoint'], input.endpoint, { min: 1, max: MAX_S3_ENDPOINT });
    // The service connects where the endpoint says, as it does for webhooks: the same rules.
    await checkEndpoint(check, ['endpoint'], input.endpoint, {
      allowPrivate: ctx.settings.webhooks.allowPrivate,
      resolve: ctx.settings.resolveHost,
    });
  }
  check.done();
  const location: S3Location = {
    bucket: input.bucket!,
    region: input.region!,
    endpoint: input.endpoint?.replace(/\/+$/, '') ?? null,
    forcePathStyle: input.forcePathStyle ?? input.endpoint != null,
  };
  const credentials = { accessKeyId: input.accessKeyId!, secretAccessKey: input.secretAccessKey! };
  try {
    await probeBucket(location, credentials, ctx.log);
  } catch (err) {
    const where = `bucket ${location.bucket}${location.endpoint ? ` at ${location.endpoint}` : ` in ${location.region}`}`;
    throw AppError.validation([
      { field: [], message: `Could not write to the ${where}: ${describeS3Error(err)}`, code: 'INVALID' },
    ]);
  }
  const sealedCredentials = sealCredentials(ctx.settings.secret, credentials);
  const organizationId = ctx.viewer.organizationId;
  await ctx.db.transaction(async (tx) => {
    await tx.execute(
      `insert into cloud_storage_connection (organization_id, provider, bucket, region, endpoint, force_path_style, sealed_credentials, connected_by_id, connected_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (organization_id, provider) do update
          set bucket = excluded.bucket, region = excluded.region, endpoint = excluded.endpoint, force_path_style = excluded.force_path_style,
              sealed_credentials = excluded.sealed_credentials, connected_by_id = excluded.connected_by_id, connected_at = excluded.connected_at`,
      [
        organizationId,
        provider,
        location.bucket,
        location.region,
        location.endpoint,
        location.forcePathStyle,
        sealedCredentials,
        ctx.viewer.userId,
        ctx.settings.clock.now(),
      ],
    );
  });
  const [connection] = await ctx.db.records(
    CloudStorageConnection,
    'select * from cloud_storage_connection where organization_id = ? and provider = ?',
    [organizationId, provider],
  );
  return viewOf(provider, connection);
}

/**
 * Disconnects a provider: its keys are deleted, and copies not yet made are cancelled (a request that
 * completes later records that nothing was connected). Disconnecting what is not connected changes nothing.
 */
export async function disconnectCloudStorage(ctx: Ctx, provider: ConnectionProvider): Promise<CloudStorageView> {
  requireConnectable(ctx, provider, 'disconnected');
  const organizationId = ctx.viewer.organizationId;
  await ctx.db.transaction(async (tx) => {
    await tx.execute('delete from cloud_storage_connection where organization_id = ? and provider = ?', [
      organizationId,
      provider,
    ]);
    const cancelled = await tx.rows<PlannedRow>(
      `update job set status = 'CANCELLED', updated_at = ? where organization_id = ? and kind = ? and status = 'PENDING'
       returning ${PLANNED}`,
      [ctx.settings.clock.now(), organizationId, COPY_JOB_KIND],
    );
    await queuePlanned(tx, cancelled);
  });
  return viewOf(provider, undefined);
}
