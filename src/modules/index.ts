import type { EmitHook, Renderer } from '../kernel/events/outbox';
import type { SubjectType } from '../kernel/events/topics';
import type { RestRow } from '../kernel/rest/engine';
import { eventResolvers } from './events/event.resolvers';
import { attachmentResolvers } from './attachments/attachment.resolvers';
import { attachmentRestRows } from './attachments/attachment.rest';
import { contractRestRows, renderContract } from './contracts/contract.rest';
import { documentRestRows, renderDocument } from './documents/document.rest';
import { contractResolvers } from './contracts/contract.resolvers';
import { documentResolvers } from './documents/document.resolvers';
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
import { webhookResolvers } from './webhooks/webhook.resolvers';
import { webhookRestRows } from './webhooks/webhook.rest';
import { queueDeliveries } from './webhooks/webhook.service';

export { ENTITIES } from './entities';
export { loadEventSubject } from './events/event.subjects';
export { createLoaders } from './loaders';
export { DeliveryWorker } from './webhooks/webhook.delivery';
export { systemResolver } from './webhooks/webhook.endpoint';

export const RESOLVERS = [nodeResolvers, identityResolvers, requestResolvers, itemResolvers, recipientResolvers, templateResolvers, attachmentResolvers, documentResolvers, contractResolvers, eventResolvers, webhookResolvers];

export const REST_ROWS: RestRow[] = [...identityRestRows, ...requestRestRows, ...itemRestRows, ...templateRestRows, ...recipientRestRows, ...attachmentRestRows, ...documentRestRows, ...contractRestRows, ...webhookRestRows];

/** Run in the transaction of every event, after its row is written. */
export const EMIT_HOOKS: EmitHook[] = [queueDeliveries];

/** How each kind of event subject is rendered in its REST shape (webhook `data`). */
export const EVENT_RENDERERS: Record<SubjectType, Renderer> = {
  Request: renderRequest,
  RequestItem: renderItem,
  Document: renderDocument,
  Contract: renderContract,
};
