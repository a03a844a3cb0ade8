import { loadRef } from '../../kernel/db/loaders';
import type { Resolvers } from '../../kernel/graphql/__generated__/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { effectiveAuth, linkToken, mfaLink, recipientPassword, requestLink } from './recipient-link';
import { listContacts, regenerateLink, upsertContact } from './recipient.service';
import { countFields } from '../../kernel/graphql/pagination';

export const recipientResolvers: Resolvers = {
  Query: {
    contacts: (_root, args, ctx) => listContacts(ctx, args, 'own'),
  },
  Mutation: {
    contactUpsert: (_root, { input }, ctx) => payload(async () => ({ contact: await upsertContact(ctx, input) })),
    recipientLinkRegenerate: (_root, { id, requestId }, ctx) =>
      payload(async () => {
        const recipient = await regenerateLink(ctx, id, requestId);
        return { recipient, request: (await loadRef(recipient.request, ctx.loaders.requestById))! };
      }),
  },
  Organization: {
    contacts: (_org, args, ctx) => listContacts(ctx, args, 'organization'),
  },
  Contact: {
    owner: async (contact, _args, ctx, info) => (await loadRef(contact.owner, ctx.loaders.userById, info))!,
    team: (contact, _args, ctx, info) => (contact.team ? loadRef(contact.team, ctx.loaders.teamById, info) : null),
  },
  Request: {
    recipients: (request, _args, ctx) => ctx.loaders.recipientsByRequest.load(request.id),
  },
  Recipient: {
    contact: async (recipient, _args, ctx, info) => (await loadRef(recipient.contact, ctx.loaders.contactById, info))!,
    auth: async (recipient, _args, ctx) => {
      const request = (await loadRef(recipient.request, ctx.loaders.requestById))!;
      return effectiveAuth(recipient.authMethod, request.mfaEnabled, recipient.email ?? null);
    },
    requestLink: (recipient, _args, ctx) => requestLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce)),
    mfaLink: async (recipient, _args, ctx) => {
      const request = (await loadRef(recipient.request, ctx.loaders.requestById))!;
      const auth = effectiveAuth(recipient.authMethod, request.mfaEnabled, recipient.email ?? null);
      return mfaLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce), auth, request.mfaEnabled);
    },
    password: (recipient, _args, ctx) => recipientPassword(ctx.settings.secret, recipient.id, recipient.linkNonce),
  },
  ContactConnection: {
    ...countFields,
  },
};
