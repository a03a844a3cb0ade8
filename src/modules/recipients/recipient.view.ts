import type { RestRecipientFragment } from '../../generated/operations';
import type { RequestViewPart } from '../requests/request.view';
import { effectiveAuth, linkToken, mfaLink, recipientPassword, requestLink } from './recipient-link';
import { Contact, Recipient, type RecipientRow } from './recipient.entities';

// A request's recipients as REST shows them in its views, from rows: their links and passwords
// derived from the server secret, as the GraphQL fields derive them (recipient.resolvers.ts).

/** What a recipient's fragment is made of: its row's columns and its contact's. */
type RecipientLine = {
  id: string;
  request_id: string;
  link_nonce: string;
  auth_method: RecipientRow['authMethod'];
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  language: string | null;
  contact_id: string;
  contact_owner_id: string;
  contact_team_id: string | null;
};

export const requestRecipientsView: RequestViewPart<RecipientLine> = {
  entity: Recipient,
  read: (db, requests) =>
    db.rows<RecipientLine>(
      `select r.id, r.request_id, r.link_nonce, r.auth_method, r.first_name, r.last_name, r.email, r.phone, r.language,
              r.contact_id, c.owner_id as contact_owner_id, c.team_id as contact_team_id
         from recipient r join contact c on c.id = r.contact_id
        where r.request_id = any(?::uuid[]) and r.organization_id = ?
        order by r.position`,
      [requests.map((request) => request.id), requests[0].organization.id],
      { prepared: true },
    ),
  written(recordsOf) {
    const contacts = new Map(recordsOf(Contact).map((contact) => [contact.id, contact]));
    return recordsOf(Recipient)
      .sort((a, b) => a.position - b.position)
      .map((recipient) => {
        const contact = contacts.get(recipient.contact.id)!;
        return {
          id: recipient.id,
          request_id: recipient.request.id,
          link_nonce: recipient.linkNonce,
          auth_method: recipient.authMethod,
          first_name: recipient.firstName ?? null,
          last_name: recipient.lastName ?? null,
          email: recipient.email ?? null,
          phone: recipient.phone ?? null,
          language: recipient.language ?? null,
          contact_id: contact.id,
          contact_owner_id: contact.owner.id,
          contact_team_id: contact.team?.id ?? null,
        };
      });
  },
  shape(settings, requests, lines) {
    const mfaById = new Map(requests.map((request) => [request.id, request.mfaEnabled]));
    const byRequest = new Map<string, RestRecipientFragment[]>(requests.map((request) => [request.id, []]));
    for (const line of lines) {
      byRequest.get(line.request_id)!.push(recipientFragment(settings, line, mfaById.get(line.request_id)!));
    }
    return new Map([...byRequest].map(([id, recipients]) => [id, { recipients }]));
  },
};

function recipientFragment(
  settings: { publicUrl: string; secret: string },
  recipient: RecipientLine,
  mfaEnabled: boolean,
): RestRecipientFragment {
  const token = linkToken(settings.secret, recipient.id, recipient.link_nonce);
  const auth = effectiveAuth(recipient.auth_method, mfaEnabled, recipient.email);
  return {
    requestLink: requestLink(settings.publicUrl, token),
    mfaLink: mfaLink(settings.publicUrl, token, auth, mfaEnabled),
    auth,
    password: recipientPassword(settings.secret, recipient.id, recipient.link_nonce),
    firstName: recipient.first_name,
    lastName: recipient.last_name,
    email: recipient.email,
    phone: recipient.phone,
    language: recipient.language as RestRecipientFragment['language'],
    contact: {
      id: recipient.contact_id,
      owner: { id: recipient.contact_owner_id },
      team: recipient.contact_team_id ? { id: recipient.contact_team_id } : null,
    },
  };
}
