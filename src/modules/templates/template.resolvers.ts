import { loadRef, loadRequiredRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from './template.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

export const templateResolvers: Resolvers = {
  Query: {
    template: (_root, { id }, ctx) => getTemplate(ctx, id),
    templates: (_root, args, ctx) => listTemplates(ctx, args),
  },
  Mutation: {
    templateCreate: (_root, { input }, ctx) => payload(async () => ({ template: await createTemplate(ctx, input) })),
    templateUpdate: (_root, { id, input }, ctx) =>
      payload(async () => ({ template: await updateTemplate(ctx, id, input) })),
    templateDelete: (_root, { id }, ctx) => payload(async () => ({ deletedTemplateId: await deleteTemplate(ctx, id) })),
  },
  Organization: {
    templates: (_org, args, ctx) => listTemplates(ctx, args),
  },
  Template: {
    items: (template, _args, ctx) => ctx.loaders.templateItemsByTemplate.load(template.id),
    owner: (template, _args, ctx, info) => loadRequiredRef(template.owner, ctx.loaders.userById, info),
    team: (template, _args, ctx, info) => (template.team ? loadRef(template.team, ctx.loaders.teamById, info) : null),
    // Whoever sees a template may change it (see template.service.ts).
    viewerCanUpdate: () => true,
  },
  Request: {
    template: reads(['template'], (request, _args, ctx, info) =>
      request.template ? loadRef(request.template, ctx.loaders.templateById, info) : null,
    ),
  },
  TemplateItem: {
    kind: (item) => item.type,
    form: (item) => item.form ?? null,
  },
  TemplateConnection: {
    ...countFields,
  },
};
