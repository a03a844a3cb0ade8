import type { EntitySchema } from '@mikro-orm/core';
import { Attachment } from './attachments/attachment.entities';
import { Contract } from './contracts/contract.entities';
import { Document } from './documents/document.entities';
import { StoredFile } from './files/file.entities';
import { ApiKey, Organization, Team, User } from './identity/identity.entities';
import { RequestItem } from './items/item.entities';
import { Contact, Recipient } from './recipients/recipient.entities';
import { Collaborator, Request } from './requests/request.entities';
import { Template, TemplateItem } from './templates/template.entities';
import { Webhook, WebhookAttempt, WebhookDelivery } from './webhooks/webhook.entities';

export const ENTITIES: EntitySchema<any, any>[] = [
  Organization,
  Team,
  User,
  ApiKey,
  Contact,
  Template,
  TemplateItem,
  Request,
  Collaborator,
  Recipient,
  RequestItem,
  Webhook,
  WebhookDelivery,
  WebhookAttempt,
  StoredFile,
  Attachment,
  Document,
  Contract,
];
