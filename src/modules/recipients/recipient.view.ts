import type { RestRecipientFragment, RestRequestFragment } from '../../generated/operations';
import type { RequestViewPart } from '../requests/request.view';
import { effectiveAuth, linkToken, mfaLink, recipientPassword, requestLink } from './recipient-link';
import { Recipient, type RecipientRow } from './recipient.entities';

// A request's recipients as REST shows them in its views, from rows: their links and passwords
// derived from the server secret, as the GraphQL fields derive them (recipient.resolvers.ts).

type ContactLine = { id: string; owner_id: string; team_id: string | null };

export const requestRecipientsView: RequestViewPart = async (db, settings, requests) => {
  const ids = requests.map((request) => request.id);
  const organizationId = requests[0].organization.id;
  const [recipients, contacts] = await Promise.all([
    db.records(
      Recipient,
      'select * from recipient where request_id = any(?::uuid[]) and organization_id = ? order by position',
      [ids, organizationId],
    ),
    db.rows<ContactLine>(
      `select id, owner_id, team_id from contact
        where id in (select contact_id from recipient where request_id = any(?::uuid[]) and organization_id = ?)`,
      [ids, organizationId],
    ),
  ]);
  const contactById = new Map(contacts.map((contact) => [contact.id, contact]));
  const mfaById = new Map(requests.map((request) => [request.id, request.mfaEnabled]));
  const byRequest = new Map<string, RestRecipientFragment[]>(ids.map((id) => [id, []]));
  for (const recipient of recipients) {
    const mfaEnabled = mfaById.get(recipient.request.id)!;
    byRequest
      .get(recipient.request.id)!
      .push(recipientFragment(settings, recipient, mfaEnabled, contactById.get(recipient.contact.id)!));
  }
  return new Map(
    [...byRequest].map(([id, list]): [string, Partial<RestRequestFragment>] => [id, { recipients: list }]),
  );
};

function recipientFragment(
  settings: { publicUrl: string; secret: string },
  recipient: RecipientRow,
  mfaEnabled: boolean,
  contact: ContactLine,
): RestRecipientFragment {
  const token = linkToken(settings.secret, recipient.id, recipient.linkNonce);
  const auth = effectiveAuth(recipient.authMethod, mfaEnabled, recipient.email ?? null);
  return {
    requestLink: requestLink(settings.publicUrl, token),
    mfaLink: mfaLink(settings.publicUrl, token, auth, mfaEnabled),
    auth,
    password: recipientPassword(settings.secret, recipient.id, recipient.linkNonce),
    firstName: recipient.firstName ?? null,
    lastName: recipient.lastName ?? null,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    language: (recipient.language ?? null) as RestRecipientFragment['language'],
    contact: {
      id: contact.id,
      owner: { id: contact.owner_id },
      team: contact.team_id ? { id: contact.team_id } : null,
    },
  };
}
