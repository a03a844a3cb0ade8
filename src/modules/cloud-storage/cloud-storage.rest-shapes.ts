import { Type } from '@sinclair/typebox';
import type { RestCloudStorageProviderFragment } from '../../generated/operations';
import { DateTime, Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';

// The REST shape of a cloud storage provider (API-DECISIONS, "Bodies of the named operations"): keys
// are never part of it.

export const { schema: CloudStorageBody, map: restCloudStorage } = restShape(
  (_field: Field<RestCloudStorageProviderFragment>) => ({
    provider: Type.String(),
    status: Type.String({ description: 'CONNECTED, AVAILABLE or UNAVAILABLE' }),
    reason: Nullable(Type.String()),
    bucket: Nullable(Type.String()),
    region: Nullable(Type.String()),
    endpoint: Nullable(Type.String()),
    force_path_style: Nullable(Type.Boolean()),
    connected_at: Nullable(DateTime()),
  }),
);
