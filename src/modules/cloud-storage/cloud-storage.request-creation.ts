import type { RequestCreationPart } from '../requests/request.creation';

/** A new request may name S3 only once its organization connected a bucket (one statement, only then). */
export const requestCloudStoragePart: RequestCreationPart = {
  field: 'cloudStorageProvider',
  async prepare(ctx, check, input) {
    if (input.cloudStorageProvider !== 'S3') return {};
    const [connected] = await ctx.db.rows(
      `select 1 from cloud_storage_connection where organization_id = ? and provider = 'S3'`,
      [ctx.viewer.organizationId],
    );
    if (!connected)
      check.add(
        ['cloudStorageProvider'],
        'No S3 bucket is connected: connect one first (POST /cloud-storage/S3)',
        'INVALID',
      );
    return {};
  },
};
