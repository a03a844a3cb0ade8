import { wrap } from '@mikro-orm/postgresql';
import { LEAN_ENTITY } from '../kernel/db/lean';
import type { GraphQLContext } from '../kernel/graphql/context';
import type { Resolvers } from '../kernel/graphql/__generated__/resolvers-types';
import { isUuid } from '../kernel/validation/input-check';
import { getAttachment } from './attachments/attachment.service';
import { getContract } from './contracts/contract.service';
import { getDocument } from './documents/document.service';
import { ApiKey } from './identity/identity.entities';
import { getOrganization, getTeam, getUser } from './identity/identity.service';
import { isAdmin } from './identity/viewer';
import { RequestItem } from './items/item.entities';
import { itemTypeName } from './items/item.resolvers';
import { Contact, Recipient } from './recipients/recipient.entities';
import { findVisibleRequest } from './requests/request.access';
import { getRequest } from './requests/request.service';
import { getTemplate } from './templates/template.service';
import { WebhookDelivery } from './webhooks/webhook.entities';
import { getWebhook } from './webhooks/webhook.service';

type NodeKind = 'User' | 'Team' | 'Request' | 'Template' | 'Contact' | 'RequestItem' | 'Recipient' | 'ApiKey' | 'Attachment' | 'Document' | 'Contract' | 'Webhook' | 'WebhookDelivery';

// Which table holds the id, limited to the caller's organization; the module's own lookup then
// applies its visibility rules.
const KIND_SQL = `
  select 'User' as kind from app_user where id = ? and organization_id = ?
  union all select 'Team' from team where id = ? and organization_id = ?
  union all select 'Request' from request where id = ? and organization_id = ?
  union all select 'Template' from template where id = ? and organization_id = ?
  union all select 'Contact' from contact where id = ? and organization_id = ?
  union all select 'RequestItem' from request_item i join request r on r.id = i.request_id where i.id = ? and r.organization_id = ? and i.deleted_at is null
  union all select 'Recipient' from recipient p join request r on r.id = p.request_id where p.id = ? and r.organization_id = ?
  union all select 'ApiKey' from api_key k join app_user u on u.id = k.user_id where k.id = ? and u.organization_id = ?
  union all select 'Attachment' from attachment where id = ? and organization_id = ?
  union all select 'Document' from document d join request r on r.id = d.request_id where d.id = ? and r.organization_id = ?
  union all select 'Contract' from contract where id = ? and organization_id = ?
  union all select 'Webhook' from webhook where id = ? and organization_id = ?
  union all select 'WebhookDelivery' from webhook_delivery d join webhook w on w.id = d.webhook_id where d.id = ? and w.organization_id = ?
  limit 1`;
const KIND_SQL_PAIRS = 13;

async function findNode(ctx: GraphQLContext, id: string): Promise<object | null> {
  if (!isUuid(id)) return null;
  if (id === ctx.viewer.organizationId) return getOrganization(ctx);
  const rows = await ctx.em.execute<{ kind: NodeKind }[]>(KIND_SQL, Array.from({ length: KIND_SQL_PAIRS }).flatMap(() => [id, ctx.viewer.organizationId]));
  switch (rows[0]?.kind) {
    case 'User':
      return getUser(ctx, id);
    case 'Team':
      return getTeam(ctx, id);
    case 'Request':
      return getRequest(ctx, id);
    case 'Template':
      return getTemplate(ctx, id);
    case 'Contact': {
      const contact = await ctx.em.findOne(Contact, id);
      return contact && (isAdmin(ctx.viewer) || contact.owner.id === ctx.viewer.userId) ? contact : null;
    }
    case 'RequestItem':
    case 'Recipient': {
      const child = rows[0].kind === 'RequestItem' ? await ctx.em.findOne(RequestItem, id) : await ctx.em.findOne(Recipient, id);
      return child && (await findVisibleRequest(ctx.em, ctx.viewer, child.request.id)) ? child : null;
    }
    case 'ApiKey': {
      const apiKey = await ctx.em.findOne(ApiKey, id);
      return apiKey && (isAdmin(ctx.viewer) || apiKey.user.id === ctx.viewer.userId) ? apiKey : null;
    }
    case 'Attachment':
      return getAttachment(ctx, id);
    case 'Document':
      return getDocument(ctx, id);
    case 'Contract':
      return getContract(ctx, id);
    // Webhooks are the ADMIN's: to a USER they do not exist.
    case 'Webhook':
      return isAdmin(ctx.viewer) ? getWebhook(ctx, id) : null;
    case 'WebhookDelivery':
      return isAdmin(ctx.viewer) ? ctx.em.findOne(WebhookDelivery, id) : null;
    default:
      return null;
  }
}

export const nodeResolvers: Resolvers = {
  Query: {
    node: (_root, { id }, ctx) => findNode(ctx, id) as never,
  },
  Node: {
    __resolveType: (node) => {
      // Lean records (the read path) carry their entity's name; managed entities their metadata.
      const className = (node as { [LEAN_ENTITY]?: string })[LEAN_ENTITY] ?? wrap(node as object, true).__meta.className;
      return className === 'RequestItem' ? itemTypeName(node as RequestItem) : (className as never);
    },
  },
};
