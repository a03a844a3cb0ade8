import type { Renderer } from '../kernel/events/outbox';
import type { SubjectType } from '../kernel/events/topics';
import type { RestRow } from '../kernel/rest/engine';
import { eventResolvers } from './events/event.resolvers';
import { identityResolvers } from './identity/identity.resolvers';
import { identityRestRows } from './identity/identity.rest';
import { itemResolvers } from './items/item.resolvers';
import { itemRestRows, renderItem } from './items/item.rest';
import { nodeResolvers } from './node.resolvers';
import { recipientResolvers } from './recipients/recipient.resolvers';
import { recipientRestRows } from './recipients/recipient.rest';
import { requestResolvers } from './requests/request.resolvers';
import { renderRequest, requestRestRows } from './requests/request.rest';
import { templateResolvers } from './templates/template.resolvers';
import { templateRestRows } from './templates/template.rest';

export { ENTITIES } from './entities';
export { loadEventSubject } from './events/event.subjects';
export { createLoaders } from './loaders';

export const RESOLVERS = [nodeResolvers, identityResolvers, requestResolvers, itemResolvers, recipientResolvers, templateResolvers, eventResolvers];

export const REST_ROWS: RestRow[] = [...identityRestRows, ...requestRestRows, ...itemRestRows, ...templateRestRows, ...recipientRestRows];

/** How each kind of event subject is rendered in its REST shape (webhook `data`). */
export const EVENT_RENDERERS: Partial<Record<SubjectType, Renderer>> = { Request: renderRequest, RequestItem: renderItem };
