import DataLoader from 'dataloader';
import type { Reader } from '../../kernel/db/db';
import type { LoaderSet } from '../../kernel/db/loaders';
import { settingsOf, type OrganizationSettingsView } from './organization.service';

export const organizationLoaders = {
  // One organization per operation: the loader makes its settings, branding and page one statement.
  settingsByOrganization: (db: Reader) =>
    new DataLoader<string, OrganizationSettingsView>((ids) => Promise.all(ids.map((id) => settingsOf(db, id)))),
};

declare module '../../kernel/graphql/context' {
  interface Loaders extends LoaderSet<typeof organizationLoaders> {}
}
