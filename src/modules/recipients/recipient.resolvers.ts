import { loadRef, loadRequiredRef, selecting } from '../../kernel/db/loaders';
import type { Resolvers } from '../../generated/resolvers-types';
import { payload } from '../../kernel/graphql/payload';
import { effectiveAuth, linkToken, mfaLink, recipientPassword, requestLink } from './recipient-link';
import { listContacts, regenerateLink, upsertContact } from './recipient.service';
import { countFields } from '../../kernel/graphql/pagination';
import { reads } from '../../kernel/graphql/projection';

/** What a recipient's `auth` and `mfaLink` read of its request. */
const MFA: ReadonlySet<string> = new Set(['mfaEnabled']);

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
    owner: reads(['owner'], (contact, _args, ctx, info) => loadRequiredRef(contact.owner, ctx.loaders.userById, info)),
    team: reads(['team'], (contact, _args, ctx, info) =>
      contact.team ? loadRef(contact.team, ctx.loaders.teamById, info) : null,
    ),
  },
  Request: {
    // Its recipients' `auth` and `mfaLink` read the request's `mfaEnabled` (MFA, below): read with
    // the request, a list's page answers them without reading its requests again.
    recipients: reads(['id', 'mfaEnabled'], (request, _args, ctx, info) =>
      ctx.loaders.recipientsByRequest.load(selecting(request.id, info)),
    ),
  },
  Recipient: {
    contact: reads(['contact'], (recipient, _args, ctx, info) =>
      loadRequiredRef(recipient.contact, ctx.loaders.contactById, info),
    ),
    auth: reads(['authMethod', 'email', 'request'], async (recipient, _args, ctx) => {
      const request = (await ctx.loaders.requestById.load({ id: recipient.request.id, properties: MFA }))!;
      return effectiveAuth(recipient.authMethod, request.mfaEnabled, recipient.email ?? null);
    }),
    requestLink: reads(['linkNonce'], (recipient, _args, ctx) =>
      requestLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce)),
    ),
    mfaLink: reads(['authMethod', 'email', 'request', 'linkNonce'], async (recipient, _args, ctx) => {
      const request = (await ctx.loaders.requestById.load({ id: recipient.request.id, properties: MFA }))!;
      const auth = effectiveAuth(recipient.authMethod, request.mfaEnabled, recipient.email ?? null);
      return mfaLink(
        ctx.settings.publicUrl,
        linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce),
        auth,
        request.mfaEnabled,
      );
    }),
    password: reads(['linkNonce'], (recipient, _args, ctx) =>
      recipientPassword(ctx.settings.secret, recipient.id, recipient.linkNonce),
    ),
  },
  ContactConnection: {
    ...countFields,
  },
};
