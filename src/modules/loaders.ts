import type { EntityManager } from '@mikro-orm/postgresql';
import { createAttachmentLoaders } from './attachments/attachment.loaders';
import { createContractLoaders } from './contracts/contract.loaders';
import { createDocumentLoaders } from './documents/document.loaders';
import { createFileLoaders } from './files/file.loaders';
import { createIdentityLoaders } from './identity/identity.loaders';
import { createItemLoaders } from './items/item.loaders';
import { createRecipientLoaders } from './recipients/recipient.loaders';
import { createRequestLoaders } from './requests/request.loaders';
import { createTemplateLoaders } from './templates/template.loaders';
import { createWebhookLoaders } from './webhooks/webhook.loaders';

/** The per-operation DataLoaders of every module, made fresh for each operation. */
export function createLoaders(em: EntityManager) {
  return {
    ...createIdentityLoaders(em),
    ...createRequestLoaders(em),
    ...createItemLoaders(em),
    ...createRecipientLoaders(em),
    ...createTemplateLoaders(em),
    ...createWebhookLoaders(em),
    ...createFileLoaders(em),
    ...createAttachmentLoaders(em),
    ...createDocumentLoaders(em),
    ...createContractLoaders(em),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
