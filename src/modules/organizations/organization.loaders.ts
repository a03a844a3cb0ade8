import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LoaderSet } from '../../kernel/db/loaders';
import { settingsOf, type OrganizationSettingsView } from './organization.service';

export const organizationLoaders = {
  // One organization per operation: the loader makes its settings, branding and page one statement.
  settingsByOrganization: (em: EntityManager) =>
    new DataLoader<string, OrganizationSettingsView>((ids) => Promise.all(ids.map((id) => settingsOf(em, id)))),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof organizationLoaders> {}
}
