import { loaderSet } from '../kernel/db/loaders';
import { attachmentLoaders } from './attachments/attachment.loaders';
import { contractLoaders } from './contracts/contract.loaders';
import { documentLoaders } from './documents/document.loaders';
import { fileLoaders } from './files/file.loaders';
import { identityLoaders } from './identity/identity.loaders';
import { itemLoaders } from './items/item.loaders';
import { recipientLoaders } from './recipients/recipient.loaders';
import { requestLoaders } from './requests/request.loaders';
import { templateLoaders } from './templates/template.loaders';
import { webhookLoaders } from './webhooks/webhook.loaders';

/** The per-operation DataLoaders of every module; each is made on its first use in the operation. */
export const createLoaders = loaderSet({
  ...identityLoaders,
  ...requestLoaders,
  ...itemLoaders,
  ...recipientLoaders,
  ...templateLoaders,
  ...webhookLoaders,
  ...fileLoaders,
  ...attachmentLoaders,
  ...documentLoaders,
  ...contractLoaders,
});

export type Loaders = ReturnType<typeof createLoaders>;
