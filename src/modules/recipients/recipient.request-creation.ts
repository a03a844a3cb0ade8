import type { RequestCreationPart } from '../requests/request.creation';
import { Contact, Recipient } from './recipient.entities';
import { insertRecipients, prepareRecipients } from './recipient.service';

/** A new request's recipients, and the owner's contacts they become. */
export const requestRecipientsPart: RequestCreationPart = {
  field: 'recipients',
  async prepare(ctx, check, input) {
    const drafts = await prepareRecipients(ctx, check, input.recipients);
    return {
      async write(tx, { request, owner }) {
        const { recipients, contacts } = await insertRecipients(tx, ctx.settings, request, owner, drafts);
        return [
          [Recipient, recipients],
          [Contact, contacts],
        ];
      },
    };
  },
};
