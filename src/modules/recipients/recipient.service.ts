import { randomUUID } from 'node:crypto';
import type { Tx } from '../../kernel/db/db';
import type { GraphQLContext, ServiceSettings } from '../../kernel/graphql/context';
import type { ContactUpsertInput, RecipientInput } from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { MAX_PERSON_NAME } from '../../kernel/limits';
import { isAdmin, userRefOf, type UserRef } from '../identity/viewer';
import { AppError } from '../../kernel/errors/app-error';
import { findVisibleRequest, requireVisibleRequestForUpdate } from '../requests/request.access';
import { emitRequestEvent, type Ctx as RequestCtx } from '../requests/request.service';
import { transition } from '../requests/request.states';
import type { Language } from '../requests/request.enums';
import { Request } from '../requests/request.entities';
import type { AuthMethod, SendMethod } from './recipient.enums';
import { Contact, Recipient, type RecipientRow, type ContactRow } from './recipient.entities';
import { MAX_QUESTION, MAX_RECIPIENTS } from './recipient.limits';
import { answerHash, linkToken, newLinkNonce, recipientPassword, sha256Hex } from './recipient-link';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer'>;

/** A recipient ready to store: its person (an existing contact, or details to upsert as one). */
export type RecipientDraft = {
  contact: ContactRow | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  language: Language | null;
  authMethod: AuthMethod;
  sendMethod: SendMethod;
  questionText: string | null;
  questionAnswer: string | null;
};

function checkPersonFields(
  check: InputCheck,
  path: FieldPath,
  input: { firstName?: string | null; lastName?: string | null; email?: string | null; phone?: string | null },
) {
  check
    .text([...path, 'firstName'], input.firstName, { max: MAX_PERSON_NAME })
    .text([...path, 'lastName'], input.lastName, { max: MAX_PERSON_NAME })
    .email([...path, 'email'], input.email)
    .phone([...path, 'phone'], input.phone);
}

const normaliseEmail = (email: string | null | undefined) => (email ? email.trim().toLowerCase() : null);

/**
 * Checks the recipients of a new request and resolves the contacts they name. Problems are added to
 * `check`; the drafts are only meaningful when it ends without any.
 */
export async function prepareRecipients(
  ctx: Ctx,
  check: InputCheck,
  inputs: RecipientInput[],
): Promise<RecipientDraft[]> {
  check.count(['recipients'], inputs, { min: 1, max: MAX_RECIPIENTS });
  const ids = inputs.map((r) => r.id).filter((id): id is string => !!id && isUuid(id));
  const contacts = ids.length
    ? await ctx.db.records(Contact, 'select * from contact where id = any(?::uuid[]) and organization_id = ?', [
        ids,
        ctx.viewer.organizationId,
      ])
    : [];
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const seen = new Set<string>();

  return inputs.map((input, index) => {
    const path = ['recipients', index];
    checkPersonFields(check, path, input);
    check.uuid([...path, 'id'], input.id);
    check
      .text([...path, 'questionText'], input.questionText, { max: MAX_QUESTION })
      .text([...path, 'questionAnswer'], input.questionAnswer, { max: MAX_QUESTION });
    const contact = input.id ? byId.get(input.id) : undefined;
    if (input.id && isUuid(input.id) && !contact)
      check.add([...path, 'id'], 'Names no contact of your organization', 'NOT_FOUND');
    const draft: RecipientDraft = {
      contact: contact ?? null,
      firstName: input.firstName ?? contact?.firstName ?? null,
      lastName: input.lastName ?? contact?.lastName ?? null,
      email: input.email?.trim() || contact?.email || null,
      phone: input.phone?.trim() || contact?.phone || null,
      language: input.language ?? contact?.language ?? null,
      authMethod: input.authMethod ?? 'UNSET',
      sendMethod: input.sendMethod ?? 'DEFAULT',
      questionText: input.questionText ?? null,
      questionAnswer: input.questionAnswer ?? null,
    };
    if (!input.id && !draft.email && !draft.phone)
      check.add([...path, 'email'], 'A recipient needs an email or a phone', 'REQUIRED');
    if (draft.authMethod === 'SECURITY_QUESTION') {
      if (!draft.questionText?.trim())
        check.add([...path, 'questionText'], 'Required with SECURITY_QUESTION', 'REQUIRED');
      if (!draft.questionAnswer?.trim())
        check.add([...path, 'questionAnswer'], 'Required with SECURITY_QUESTION', 'REQUIRED');
    }
    if (draft.authMethod === 'EMAIL' && !draft.email)
      check.add([...path, 'email'], 'Required with auth method EMAIL', 'REQUIRED');
    if (draft.authMethod === 'SMS' && !draft.phone)
      check.add([...path, 'phone'], 'Required with auth method SMS', 'REQUIRED');
    const identity = draft.contact?.id ?? `${normaliseEmail(draft.email)}|${draft.phone ?? ''}`;
    if (seen.has(identity)) check.add(path, 'The same recipient appears twice', 'INVALID');
    seen.add(identity);
    return draft;
  });
}

/** The statement of upsertContacts, made once (its text names a prepared statement, looked up per call). */
let upsertContactsSql: string | undefined;

/**
 * Upserts the owner's contacts for recipients given by their details, in one statement keyed like
 * the unique index (owner, lower(email), phone); given details refresh the stored ones. Returns each
 * draft's contact as stored, by the draft's position. Matching happens in SQL, so PostgreSQL's own
 * lower() (which may differ from JavaScript's for letters such as İ) decides which drafts are the same
 * person.
 */
async function upsertContacts(tx: Tx, owner: UserRef, drafts: RecipientDraft[]): Promise<Map<number, ContactRow>> {
  const given = drafts.flatMap((draft, position) => (draft.contact ? [] : [{ draft, position }]));
  const contacts = new Map<number, ContactRow>();
  if (given.length === 0) return contacts;
  const now = new Date();
  const column = (value: (draft: RecipientDraft) => string | null) => given.map(({ draft }) => value(draft));
  // One row per input row (each matches exactly one upserted contact), in the input's order. The
  // input's columns are arrays and the answer's columns are named, so the text is fixed: prepared.
  upsertContactsSql ??= `with input (position, first_name, last_name, email, phone, language) as (select * from unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])),
     upserted as (
       insert into contact (id, organization_id, owner_id, team_id, first_name, last_name, email, phone, language, created_at, updated_at)
       select distinct on (lower(coalesce(email, '')), coalesce(phone, ''))
              gen_random_uuid(), ?::uuid, ?::uuid, ?::uuid, first_name, last_name, email, phone, language, ?::timestamptz, ?::timestamptz
         from input order by lower(coalesce(email, '')), coalesce(phone, ''), position
       on conflict (owner_id, (lower(coalesce(email, ''))), (coalesce(phone, ''))) do update set
         first_name = coalesce(excluded.first_name, contact.first_name),
         last_name = coalesce(excluded.last_name, contact.last_name),
         language = coalesce(excluded.language, contact.language),
         updated_at = excluded.updated_at
       returning ${tx.columns(Contact, null, 'contact')}, lower(coalesce(email, '')) as email_key, coalesce(phone, '') as phone_key)
     select upserted.*
       from input join upserted on upserted.email_key = lower(coalesce(input.email, '')) and upserted.phone_key = coalesce(input.phone, '')
      order by input.position`;
  const stored = await tx.records(
    Contact,
    upsertContactsSql,
    [
      given.map(({ position }) => position),
      column((d) => d.firstName),
      column((d) => d.lastName),
      column((d) => d.email),
      column((d) => d.phone),
      column((d) => d.language),
      owner.organizationId,
      owner.id,
      owner.teamId,
      now,
      now,
    ],
    { prepared: true },
  );
  stored.forEach((contact, index) => contacts.set(given[index].position, contact));
  return contacts;
}

/**
 * Stores the recipients of a new request, each with its link secrets, and their contacts, upserted first; answers
 * both as stored, the contacts one per recipient.
 */
export async function insertRecipients(
  tx: Tx,
  settings: ServiceSettings,
  request: { id: string; organization: { id: string } },
  owner: UserRef,
  drafts: RecipientDraft[],
): Promise<{ recipients: RecipientRow[]; contacts: ContactRow[] }> {
  const upserted = await upsertContacts(tx, owner, drafts);
  const contacts = drafts.map((draft, position) => draft.contact ?? upserted.get(position)!);
  const values = drafts.map((draft, position) => {
    // The link secrets derive from the id, so it is chosen here rather than by the record's default.
    const id = randomUUID();
    const linkNonce = newLinkNonce();
    return {
      id,
      organization: request.organization,
      request,
      contact: contacts[position].id,
      position,
      firstName: draft.firstName,
      lastName: draft.lastName,
      email: draft.email,
      phone: draft.phone,
      language: draft.language,
      authMethod: draft.authMethod,
      sendMethod: draft.sendMethod,
      questionText: draft.questionText,
      linkNonce,
      tokenHash: sha256Hex(linkToken(settings.secret, id, linkNonce)),
      passwordHash: sha256Hex(recipientPassword(settings.secret, id, linkNonce)),
      questionAnswerHash: draft.questionAnswer ? answerHash(settings.secret, id, draft.questionAnswer) : null,
    };
  });
  return { recipients: await tx.insert(Recipient, values), contacts };
}

/** The caller's own contacts (GET /contacts), or every contact of the organization for ADMIN's organization list. */
/** A contact of the organization: an ADMIN sees all, a USER its own. */
export async function getContact(ctx: Ctx, id: string): Promise<ContactRow | null> {
  const [contact] = isUuid(id)
    ? await ctx.db.records(Contact, 'select * from contact where id = ? and organization_id = ?', [
        id,
        ctx.viewer.organizationId,
      ])
    : [];
  return contact && (isAdmin(ctx.viewer) || contact.owner.id === ctx.viewer.userId) ? contact : null;
}

/** A recipient, if its request is visible to the viewer. */
export async function getRecipient(ctx: Ctx, id: string): Promise<RecipientRow | null> {
  const [recipient] = isUuid(id) ? await ctx.db.records(Recipient, 'select * from recipient where id = ?', [id]) : [];
  return recipient && (await findVisibleRequest(ctx.db, ctx.viewer, recipient.request.id)) ? recipient : null;
}

export async function listContacts(
  ctx: Ctx,
  args: PageArgs,
  scope: 'own' | 'organization',
): Promise<Connection<ContactRow>> {
  const own = scope === 'own' || !isAdmin(ctx.viewer);
  const params = own ? [ctx.viewer.organizationId, ctx.viewer.userId] : [ctx.viewer.organizationId];
  const sql = `select c.* from contact c where c.organization_id = ?${own ? ' and c.owner_id = ?' : ''}`;
  return paginate({ db: ctx.db, entity: Contact, sql, params }, args, {
    property: 'createdAt',
    column: 'created_at',
    direction: 'ASC',
  });
}

/** POST /contacts: creates a contact of the caller or updates the one with the same email and phone. */
export async function upsertContact(ctx: Ctx, input: ContactUpsertInput): Promise<ContactRow> {
  const check = new InputCheck();
  checkPersonFields(check, [], input);
  if (!input.email?.trim() && !input.phone?.trim())
    check.add(['email'], 'A contact needs an email or a phone', 'REQUIRED');
  check.done();
  const draft: RecipientDraft = {
    contact: null,
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    email: input.email?.trim() || null,
    phone: input.phone?.trim() || null,
    language: input.language ?? null,
    authMethod: 'UNSET',
    sendMethod: 'DEFAULT',
    questionText: null,
    questionAnswer: null,
  };
  return ctx.db.transaction(async (tx) => (await upsertContacts(tx, userRefOf(ctx.viewer), [draft])).get(0)!);
}

/**
 * Gives a recipient a new link (and with it a new password): both derive from the nonce, so the old
 * link stops working. A request nobody submitted yet looks fresh again; the recipient is invited anew
 * (the notifications module's hook hears `link.regenerated`).
 */
export async function regenerateLink(ctx: RequestCtx, id: string, requestId?: string | null): Promise<RecipientRow> {
  return ctx.db.transaction(async (tx) => {
    // Under a request, the contact REST shows as `recipient.id` names its recipient too (a contact is
    // a request's recipient once at most), so a REST client can use the id it was given.
    const [found] = !isUuid(id)
      ? []
      : requestId == null
        ? await tx.records(Recipient, 'select * from recipient where id = ?', [id])
        : isUuid(requestId)
          ? await tx.records(Recipient, 'select * from recipient where request_id = ? and (id = ? or contact_id = ?)', [
              requestId,
              id,
              id,
            ])
          : [];
    if (!found) throw AppError.notFound('Recipient');
    // Visibility of a recipient is the visibility of its request.
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, found.request.id).catch((err: unknown) => {
      throw err instanceof AppError && err.code === 'NOT_FOUND' ? AppError.notFound('Recipient') : err;
    });
    const state = transition(request.state, 'regenerate-link', { submittedBefore: request.firstSubmittedAt != null });
    const updated = state === request.state ? ['recipients'] : ['state', 'recipients'];
    const changed = await tx.update(Request, request.id, { state });
    const linkNonce = newLinkNonce();
    const recipient = await tx.update(Recipient, found.id, {
      linkNonce,
      tokenHash: sha256Hex(linkToken(ctx.settings.secret, found.id, linkNonce)),
      passwordHash: sha256Hex(recipientPassword(ctx.settings.secret, found.id, linkNonce)),
    });
    await emitRequestEvent(tx, ctx, 'request.updated', changed, {
      updated,
      action: 'link.regenerated',
      details: { recipient_id: found.id },
    });
    return recipient;
  });
}
