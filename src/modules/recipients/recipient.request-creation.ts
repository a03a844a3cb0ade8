import { primeAll } from '../../kernel/db/loaders';
import type { RequestCreationPart } from '../requests/request.creation';
import { Recipient, type ContactRow } from './recipient.entities';
import { newRecipients, prepareRecipients } from './recipient.service';

/** A new request's recipients, and the owner's contacts they become. */
export const requestRecipientsPart: RequestCreationPart = {
  field: 'recipients',
  async prepare(ctx, check, input) {
    const drafts = await prepareRecipients(ctx, check, input.recipients);
    let contacts: ContactRow[] = [];
    return {
      async records(tx, { request, owner }) {
        const stored = await newRecipients(tx, ctx.settings, request, owner, drafts);
        contacts = stored.contacts;
        return [Recipient, stored.recipients];
      },
      prime(loaders, { request, recordsOf }) {
        loaders.recipientsByRequest.prime(request.id, recordsOf(Recipient));
        primeAll(loaders.contactById, contacts);
      },
    };
  },
};
