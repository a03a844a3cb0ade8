import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation';
import { Migration20261122000000_events } from './Migration20261122000000_events';
import { Migration20261122000000_files } from './Migration20261122000000_files';
import { Migration20261126000000_organization_columns } from './Migration20261126000000_organization_columns';
import { Migration20261127000000_shared_caches } from './Migration20261127000000_shared_caches';
import { Migration20261201000000_sessions } from './Migration20261201000000_sessions';
import { Migration20261203000000_upload_rules } from './Migration20261203000000_upload_rules';

// The schema's history from before modules carried their own migrations, and migrations that change
// the tables of several modules at once. A module adds its later migrations to its descriptor (`migrations`);
// the fold orders them all by name. Listed explicitly rather than discovered by glob, so the same
// list works under tsx, jest and tsc output.
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261122000000_events', class: Migration20261122000000_events },
  { name: 'Migration20261122000000_files', class: Migration20261122000000_files },
  { name: 'Migration20261126000000_organization_columns', class: Migration20261126000000_organization_columns },
  { name: 'Migration20261127000000_shared_caches', class: Migration20261127000000_shared_caches },
  { name: 'Migration20261201000000_sessions', class: Migration20261201000000_sessions },
  { name: 'Migration20261203000000_upload_rules', class: Migration20261203000000_upload_rules },
];
