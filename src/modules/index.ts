import type { RestRow } from '../kernel/rest/engine';
import { identityResolvers } from './identity/identity.resolvers';
import { identityRestRows } from './identity/identity.rest';
import { itemResolvers } from './items/item.resolvers';
import { nodeResolvers } from './node.resolvers';
import { recipientResolvers } from './recipients/recipient.resolvers';
import { requestResolvers } from './requests/request.resolvers';
import { templateResolvers } from './templates/template.resolvers';

export { ENTITIES } from './entities';
export { createLoaders } from './loaders';

export const RESOLVERS = [nodeResolvers, identityResolvers, requestResolvers, itemResolvers, recipientResolvers, templateResolvers];

export const REST_ROWS: RestRow[] = [...identityRestRows];
