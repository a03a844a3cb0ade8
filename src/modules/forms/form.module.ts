import type { ModuleDescriptor } from '../../kernel/module';
import { Form } from './form.entities';
import { formLoaders } from './form.loaders';
import { formResolvers } from './form.resolvers';
import { formRestRows } from './form.rest';
import { getForm } from './form.service';
import { Migration20261126000100_forms } from './Migration20261126000100_forms';

export const formsModule: ModuleDescriptor = {
  name: 'forms',
  entities: [Form],
  migrations: [{ name: 'Migration20261126000100_forms', class: Migration20261126000100_forms }],
  loaders: formLoaders,
  resolvers: formResolvers,
  restRows: formRestRows,
  nodes: { Form: { sql: 'select 1 from form where id = ? and organization_id = ?', load: getForm } },
};
