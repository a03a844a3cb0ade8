import type { RestRow } from '../kernel/rest/engine';
import { attachmentResolvers } from './attachments/attachment.resolvers';
import { attachmentRestRows } from './attachments/attachment.rest';
import { contractRestRows } from './contracts/contract.rest';
import { documentRestRows } from './documents/document.rest';
import { contractResolvers } from './contracts/contract.resolvers';
import { documentResolvers } from './documents/document.resolvers';
import { identityResolvers } from './identity/identity.resolvers';
import { identityRestRows } from './identity/identity.rest';
import { itemResolvers } from './items/item.resolvers';
import { itemRestRows } from './items/item.rest';
import { nodeResolvers } from './node.resolvers';
import { recipientResolvers } from './recipients/recipient.resolvers';
import { recipientRestRows } from './recipients/recipient.rest';
import { requestResolvers } from './requests/request.resolvers';
import { requestRestRows } from './requests/request.rest';
import { templateResolvers } from './templates/template.resolvers';
import { templateRestRows } from './templates/template.rest';

export { ENTITIES } from './entities';
export { createLoaders } from './loaders';

export const RESOLVERS = [nodeResolvers, identityResolvers, requestResolvers, itemResolvers, recipientResolvers, templateResolvers, attachmentResolvers, documentResolvers, contractResolvers];

export const REST_ROWS: RestRow[] = [...identityRestRows, ...requestRestRows, ...itemRestRows, ...templateRestRows, ...recipientRestRows, ...attachmentRestRows, ...documentRestRows, ...contractRestRows];
