import type { ModuleDescriptor } from '../../kernel/module';
import { StoredFile } from './file.entities';
import { fileLoaders } from './file.loaders';

export const filesModule: ModuleDescriptor = {
  name: 'files',
  entities: [StoredFile],
  loaders: fileLoaders,
};
