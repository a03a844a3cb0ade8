import type { ModuleDescriptor } from '../../kernel/module';
import { Template, TemplateItem } from './template.entities';
import { templateLoaders } from './template.loaders';
import { templateResolvers } from './template.resolvers';
import { templateRestRows } from './template.rest';
import { getTemplate } from './template.service';
import { requestTemplatePart } from './template.request-creation';
import { requestCreationParts } from '../requests/request.creation';

export const templatesModule: ModuleDescriptor = {
  name: 'templates',
  entities: [Template, TemplateItem],
  loaders: templateLoaders,
  resolvers: templateResolvers,
  restRows: templateRestRows,
  nodes: { Template: { sql: 'select 1 from template where id = ? and organization_id = ?', load: getTemplate } },
  contributes: [requestCreationParts.contribute(requestTemplatePart)],
};
