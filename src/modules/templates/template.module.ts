import type { ModuleDescriptor } from '../../kernel/module';
import { Template, TemplateItem } from './template.entities';
import { templateLoaders } from './template.loaders';
import { templateResolvers } from './template.resolvers';
import { templateRestRows } from './template.rest';
import { getTemplate } from './template.service';

export const templatesModule: ModuleDescriptor = {
  name: 'templates',
  entities: [Template, TemplateItem],
  loaders: templateLoaders,
  resolvers: templateResolvers,
  restRows: templateRestRows,
  nodes: { Template: { sql: 'select 1 from template where id = ? and organization_id = ?', load: getTemplate } },
};
