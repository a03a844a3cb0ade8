import { Type } from '@sinclair/typebox';
import {
  CloudStorageConnectDocument,
  CloudStorageDisconnectDocument,
  CloudStorageListDocument,
} from '../../generated/operations';
import { fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { inputFromBody } from '../../kernel/rest/mapping';
import { Body, StringEnum, Text, withErrors } from '../../kernel/rest/schemas';
import { CONNECTION_PROVIDERS } from '../requests/request.enums';
import { MAX_ACCESS_KEY_ID, MAX_REGION, MAX_S3_ENDPOINT, MAX_SECRET_ACCESS_KEY } from './cloud-storage.limits';
import { CloudStorageBody, restCloudStorage } from './cloud-storage.rest-shapes';

const tags = ['Cloud storage'];
const ProviderParams = Type.Object({ provider: StringEnum(CONNECTION_PROVIDERS, CONNECTION_PROVIDERS.join(', ')) });

// Lengths are checked here as everywhere; which fields S3 requires is the service's (other providers take none).
const ConnectBody = Body({
  bucket: Text(63),
  region: Text(MAX_REGION),
  endpoint: Text(MAX_S3_ENDPOINT, { description: 'an S3-compatible service, `https://…`; absent for AWS' }),
  access_key_id: Text(MAX_ACCESS_KEY_ID),
  secret_access_key: Text(MAX_SECRET_ACCESS_KEY),
  force_path_style: Type.Boolean({ description: 'bucket in the path (default: true with an endpoint)' }),
});

export const cloudStorageRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/cloud-storage',
    summary: 'List the cloud storage providers and their state for your organization',
    tags,
    schema: { response: withErrors({ 200: Type.Array(CloudStorageBody) }, []) },
    operation: CloudStorageListDocument,
    variables: () => ({}),
    result: (data) => ({ body: data.cloudStorageProviders.map(restCloudStorage) }),
  }),
  restRow({
    method: 'POST',
    url: '/cloud-storage/:provider',
    summary:
      "Connect a provider: S3 with the bucket's location and keys, tested with a probe object before it is saved (ADMIN)",
    tags,
    schema: { params: ProviderParams, body: ConnectBody, response: withErrors({ 200: CloudStorageBody }, [403, 422]) },
    operation: CloudStorageConnectDocument,
    variables: ({ params, body }) => ({
      provider: params.provider,
      input: inputFromBody(body ?? {}, [
        'bucket',
        'region',
        'endpoint',
        'access_key_id',
        'secret_access_key',
        'force_path_style',
      ]),
    }),
    result: (data) => ({ body: restCloudStorage(fromPayload(data.cloudStorageConnect, 'cloudStorageProvider')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/cloud-storage/:provider',
    summary: 'Disconnect a provider: its keys are deleted and copies not yet made cancelled (ADMIN)',
    tags,
    schema: { params: ProviderParams, response: withErrors({ 200: CloudStorageBody }, [403, 422]) },
    operation: CloudStorageDisconnectDocument,
    variables: ({ params }) => ({ provider: params.provider }),
    result: (data) => ({ body: restCloudStorage(fromPayload(data.cloudStorageDisconnect, 'cloudStorageProvider')) }),
  }),
];
