import type { ModuleDescriptor } from '../../kernel/module';
import { requestCreationParts } from '../requests/request.creation';
import { jobKinds } from '../schedule/schedule.jobs';
import { cloudCopyConsumer, cloudCopyJob } from './cloud-storage.copy';
import { CloudStorageConnection } from './cloud-storage.entities';
import { cloudStorageResolvers } from './cloud-storage.resolvers';
import { requestCloudStoragePart } from './cloud-storage.request-creation';
import { cloudStorageRestRows } from './cloud-storage.rest';
import { Migration20261126000100_cloud_storage } from './Migration20261126000100_cloud_storage';

export const cloudStorageModule: ModuleDescriptor = {
  name: 'cloud storage',
  entities: [CloudStorageConnection],
  migrations: [{ name: 'Migration20261126000100_cloud_storage', class: Migration20261126000100_cloud_storage }],
  resolvers: cloudStorageResolvers,
  restRows: cloudStorageRestRows,
  consumers: [cloudCopyConsumer],
  contributes: [jobKinds.contribute(cloudCopyJob), requestCreationParts.contribute(requestCloudStoragePart)],
};
