import { isDeepStrictEqual } from 'node:util';
import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext, Viewer } from '../../kernel/graphql/context';
import type { IncomingFile } from '../../kernel/http/files';
import { isUuid } from '../../kernel/validation/input-check';
import type { ContractField } from '../contracts/contract.entities';
import { signerFields } from '../signing/signing.service';
import { Document } from '../documents/document.entities';
import type { FormAnswer, ItemForm } from '../forms/form.entities';
import { readAnswers } from '../forms/form.service';
import type { Topic } from '../events/event.topics';
import { StoredFile, type StoredFileRow } from '../files/file.entities';
import { deleteReferences, saveUpload } from '../files/file.service';
import { RequestItem, type RequestItemRow } from '../items/item.entities';
import { MAX_ANSWER } from '../items/item.limits';
import { isComplete, isDone, percentComplete, progressOf } from '../items/item.progress';
import { itemTransition } from '../items/item.states';
import { fewerThanLeast, maxFilesOf, uploadRuleFor, type UploadRules } from '../items/item.upload-rules';
import { queueNotification } from '../notifications/notification.service';
import { brandingView, type BrandingView } from '../organizations/organization.service';
import { linkToken, requestLink } from '../recipients/recipient-link';
import { Request, type RequestRejection, type RequestRow } from '../requests/request.entities';
import type { Language, RequestState } from '../requests/request.enums';
import { OPEN_STATES, SUBMITTED_STATES, transition, type RequestTrigger } from '../requests/request.states';
import { Submission, type SubmissionOutcome } from './portal.entities';
import { MAX_SUBMISSION_COMMENT } from './portal.limits';

// What a signed-in recipient reads and does. Every read and write is scoped by the session's
// recipient and request (never by the owners' visibility rules), and every write locks the request,
// checks its state, and emits its events as the recipient.

export type PortalCtx = Pick<
  GraphQLContext,
  'db' | 'viewer' | 'settings' | 'storage' | 'events' | 'loaders' | 'log' | 'requestId'
>;

/** The session's recipient; the actor guard lets only recipient sessions reach these operations. */
export function sessionOf(viewer: Viewer): { id: string; requestId: string } {
  if (!viewer.recipient) throw AppError.forbidden('Only a recipient session may call this operation');
  return viewer.recipient;
}

export type RecipientFileView = {
  id: string;
  fileName: string;
  contentType: string;
  size: number;
  downloadUrl: string;
};
export type RecipientDocumentView = RecipientFileView & { mine: boolean; createdAt: Date };
export type RecipientItemView = {
  id: string;
  name: string;
  description: string | null;
  kind: RequestItemRow['kind'];
  required: boolean;
  status: RequestItemRow['status'];
  isNa: boolean;
  questionType: RequestItemRow['questionType'];
  answer: string | null;
  contractId: string | null;
  signatureFields: { id: string; type: string; placeholder: string | null; layout: ContractField['layout'] }[];
  form: Omit<ItemForm, 'id'> | null;
  formAnswers: readonly FormAnswer[] | null;
  uploadRules: UploadRules | null;
  documents: RecipientDocumentView[];
  attachments: RecipientFileView[];
};
export type RecipientRequestView = {
  id: string;
  name: string;
  state: RequestState;
  organizationName: string;
  ownerName: string;
  personalMessage: string | null;
  dueDate: Date | null;
  expirationDate: Date | null;
  language: Language;
  percentComplete: number;
  canChange: boolean;
  requireCompleteSubmission: boolean;
  disableSubmissionComments: boolean;
  recipient: { id: string; firstName: string | null; lastName: string | null; email: string | null };
  items: RecipientItemView[];
  attachments: RecipientFileView[];
  submissions: { id: string; createdAt: Date; outcome: SubmissionOutcome; comment: string | null }[];
  /** The owner's last request for changes, until the recipient submits again. */
  rejection: { id: string; message: string; itemIds: string[]; rejectedAt: Date } | null;
  branding: BrandingView;
  /** The organization's confirmation page, once submitted, while the organization shows one. */
  confirmation: { message: string } | null;
};

type FileRow = {
  id: string;
  item_id: string | null;
  name: string;
  mime_type: string;
  size: string | number;
  created_at: Date;
  recipient_id?: string | null;
};

/** Whether a recipient may still change the request (API-DECISIONS "States": open states, before expiry). */
export function recipientMayChange(request: { state: RequestState; expirationDate?: Date | null }, now: Date): boolean {
  return OPEN_STATES.includes(request.state) && !(request.expirationDate && request.expirationDate <= now);
}

/** The request of the session, as its recipient sees it. */
export async function recipientView(ctx: Pick<PortalCtx, 'db' | 'viewer' | 'settings'>): Promise<RecipientRequestView> {
  const session = sessionOf(ctx.viewer);
  const db = ctx.db;
  const [[head], items, documents, attachments, submissions] = await Promise.all([
    db.rows<{
      id: string;
      name: string;
      state: RequestState;
      organization_name: string;
      owner_name: string;
      personal_message: string | null;
      due_date: Date | null;
      expiration_date: Date | null;
      language: Language;
      require_complete_submission: boolean;
      disable_submission_comments: boolean;
      rejection: RequestRejection | null;
      recipient_id: string;
      first_name: string | null;
      last_name: string | null;
      email: string | null;
      phone: string | null;
      link_nonce: string;
      organization_id: string;
      primary_color: string | null;
      sender_name: string | null;
      support_email: string | null;
      logo_sha256: string | null;
      confirmation_enabled: boolean | null;
      confirmation_message: string | null;
    }>(
      `select r.id, r.name, r.state, o.name as organization_name, coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email) as owner_name,
              r.personal_message, r.due_date, r.expiration_date, coalesce(rc.language, r.language, os.default_language) as language, r.require_complete_submission, r.disable_submission_comments, r.rejection,
              rc.id as recipient_id, rc.first_name, rc.last_name, rc.email, rc.phone, rc.link_nonce, r.organization_id,
              os.primary_color, os.sender_name, os.support_email, os.logo_sha256, os.confirmation_enabled, os.confirmation_message
         from request r join organization o on o.id = r.organization_id join app_user u on u.id = r.owner_id
         join recipient rc on rc.request_id = r.id and rc.id = ?
         left join organization_settings os on os.organization_id = r.organization_id
        where r.id = ? and r.deleted_at is null`,
      [session.id, session.requestId],
    ),
    db.records(
      RequestItem,
      'select * from request_item where request_id = ? and deleted_at is null order by position asc',
      [session.requestId],
    ),
    db.rows<FileRow>(
      `select d.id, d.item_id, f.name, f.mime_type, f.size, d.created_at, d.recipient_id
         from document d join stored_file f on f.id = d.file_id where d.request_id = ? order by d.created_at, d.id`,
      [session.requestId],
    ),
    db.rows<FileRow>(
      `select a.id, a.item_id, f.name, f.mime_type, f.size, a.created_at
         from attachment a join stored_file f on f.id = a.file_id where a.request_id = ? order by a.position, a.id`,
      [session.requestId],
    ),
    db.rows<{ id: string; created_at: Date; outcome: SubmissionOutcome; comment: string | null }>(
      'select id, created_at, outcome, comment from submission where request_id = ? order by created_at desc, id',
      [session.requestId],
    ),
  ]);
  if (!head) throw AppError.notFound('Request');
  const base = `${requestLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, head.recipient_id, head.link_nonce))}/api`;
  const file = (row: FileRow, path: string): RecipientFileView => ({
    id: row.id,
    fileName: row.name,
    contentType: row.mime_type,
    size: Number(row.size),
    downloadUrl: `${base}/${path}/${row.id}`,
  });
  const contracts = await signatureFieldsOf(db, items, { email: head.email, phone: head.phone });
  return {
    id: head.id,
    name: head.name,
    state: head.state,
    organizationName: head.organization_name,
    ownerName: head.owner_name,
    personalMessage: head.personal_message,
    dueDate: head.due_date,
    expirationDate: head.expiration_date,
    language: head.language,
    percentComplete: percentComplete(items),
    canChange: recipientMayChange(
      { state: head.state, expirationDate: head.expiration_date },
      ctx.settings.clock.now(),
    ),
    requireCompleteSubmission: head.require_complete_submission,
    disableSubmissionComments: head.disable_submission_comments,
    recipient: { id: head.recipient_id, firstName: head.first_name, lastName: head.last_name, email: head.email },
    items: items.map((item) => ({
      id: item.id,
      name: item.name,
      description: item.description ?? null,
      kind: item.kind,
      required: item.required,
      status: item.status,
      isNa: item.isNa,
      questionType: item.questionType ?? null,
      answer: item.answer ?? null,
      contractId: item.contractId ?? null,
      signatureFields: (item.contractId && contracts.get(item.contractId)) || [],
      form: item.form ?? null,
      formAnswers: item.formAnswers ?? null,
      uploadRules: item.uploadRules ?? null,
      documents: documents
        .filter((d) => d.item_id === item.id)
        .map((d) => ({
          ...file(d, 'documents'),
          mine: d.recipient_id === session.id,
          createdAt: d.created_at,
        })),
      attachments: attachments.filter((a) => a.item_id === item.id).map((a) => file(a, 'attachments')),
    })),
    attachments: attachments.filter((a) => a.item_id === null).map((a) => file(a, 'attachments')),
    rejection: head.rejection && {
      id: head.id,
      message: head.rejection.message,
      itemIds: head.rejection.itemIds,
      rejectedAt: new Date(head.rejection.rejectedAt),
    },
    submissions: submissions.map((s) => ({
      id: s.id,
      createdAt: s.created_at,
      outcome: s.outcome,
      comment: s.comment,
    })),
    branding: brandingView(ctx.settings.publicUrl, {
      organizationId: head.organization_id,
      primaryColor: head.primary_color,
      senderName: head.sender_name,
      supportEmail: head.support_email,
      logoSha256: head.logo_sha256,
    }),
    confirmation:
      head.confirmation_enabled &&
      head.confirmation_message &&
      (SUBMITTED_STATES.includes(head.state) || head.state === 'VERIFIED')
        ? { message: head.confirmation_message }
        : null,
  };
}

async function signatureFieldsOf(
  db: Reader,
  items: readonly RequestItemRow[],
  signer: { email: string | null; phone: string | null },
): Promise<Map<string, RecipientItemView['signatureFields']>> {
  const ids = [
    ...new Set(items.flatMap((item) => (item.kind === 'E_SIGNATURE' && item.contractId ? [item.contractId] : []))),
  ];
  if (ids.length === 0) return new Map();
  const rows = await db.rows<{ id: string; fields: ContractField[] }>(
    'select id, fields from contract where id = any(?::uuid[])',
    [ids],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      signerFields(row, signer).map(({ key, field }) => ({
        id: key,
        type: field.type,
        placeholder: field.placeholder ?? null,
        layout: field.layout ?? null,
      })),
    ]),
  );
}

/** The session's request, locked for a change, if the recipient may still change it (else 422 invalid_state). */
async function lockRequest(tx: Tx, ctx: PortalCtx): Promise<RequestRow> {
  const session = sessionOf(ctx.viewer);
  const [request] = await tx.records(
    Request,
    'select * from request where id = ? and deleted_at is null limit 1 for update',
    [session.requestId],
  );
  if (!request) throw AppError.notFound('Request');
  if (!recipientMayChange(request, ctx.settings.clock.now())) {
    throw AppError.invalidState(
      `The request cannot be changed now: it is ${request.state}${SUBMITTED_HINT[request.state] ?? ''}`,
    );
  }
  return request;
}

const SUBMITTED_HINT: Partial<Record<RequestState, string>> = {
  PARTIALLY_SUBMITTED: ' (submitted; the owner may send it back)',
  SUBMITTED: ' (submitted; the owner may send it back)',
  UPDATED_AND_SUBMITTED: ' (submitted; the owner may send it back)',
  COMPLETE_AND_SUBMITTED: ' (submitted; the owner may send it back)',
};

/** An item of the session's request (another request's item, or a deleted one, is not found). */
async function itemOf(
  tx: Tx,
  request: RequestRow,
  itemId: string,
  kind?: RequestItemRow['kind'],
): Promise<RequestItemRow> {
  const [item] = isUuid(itemId)
    ? await tx.records(
        RequestItem,
        'select * from request_item where id = ? and request_id = ? and deleted_at is null limit 1',
        [itemId, request.id],
      )
    : [];
  if (!item) throw AppError.notFound('Item');
  if (kind && item.kind !== kind) {
    throw AppError.validation([
      { field: ['itemId'], message: `This item is ${item.kind}, not ${kind}`, code: 'INVALID' },
    ]);
  }
  return item;
}

/** What an event of the recipient's is about. */
type EventSubject = { type: string; id: string; requestId: string };

/**
 * Writes the events of the recipient's change, recorded as the recipient's act: each shows the
 * subject's view (as the owner's API shows it), read once for every topic of one change.
 */
async function emitAsRecipient(tx: Tx, ctx: PortalCtx, topics: Topic | Topic[], subject: EventSubject): Promise<void> {
  let data: Record<string, unknown> | undefined;
  for (const topic of [topics].flat()) {
    ({ data } = await ctx.events.emit(tx, ctx.viewer, {
      topic,
      subjectType: subject.type,
      subjectId: subject.id,
      requestId: subject.requestId,
      data,
    }));
  }
}

const itemSubject = (item: RequestItemRow): EventSubject => ({
  type: 'RequestItem',
  id: item.id,
  requestId: item.request.id,
});

/** The item's status once done: COMPLETE by the item table (a verified item is settled, so the table refuses it). */
const completed = (item: RequestItemRow) => itemTransition(item.status, 'complete');

type ItemChanges = Partial<Pick<RequestItemRow, 'status' | 'isNa' | 'answer' | 'formAnswers'>>;

/** Writes what `changes` changes of the item; an item left as it was is not written (its `updatedAt` stays). */
async function changeItem(tx: Tx, item: RequestItemRow, changes: ItemChanges): Promise<void> {
  const changed = (Object.keys(changes) as (keyof ItemChanges)[]).some(
    (property) => !isDeepStrictEqual(changes[property], item[property]),
  );
  if (changed) await tx.update(RequestItem, item.id, changes);
}

/** How many documents an item holds. */
async function documentCount(db: Reader, itemId: string): Promise<number> {
  const [{ n }] = await db.rows<{ n: number }>('select count(*)::int as n from document where item_id = ?', [itemId]);
  return n;
}

/**
 * Keeps a file as a document of an item of `kind`, by the session's recipient: the item is done, and
 * `first` (contract.signed) comes before document.uploaded and item.updated.
 */
async function storeDocument(
  ctx: PortalCtx,
  itemId: string,
  upload: IncomingFile,
  kind: 'UPLOAD' | 'E_SIGNATURE',
  first?: { topic: Topic; subject: EventSubject },
): Promise<string> {
  const session = sessionOf(ctx.viewer);
  // The item's rules refuse a type or a size before anything is stored; its count is checked again locked.
  const [rules] = isUuid(itemId)
    ? await ctx.db.rows<{ upload_rules: UploadRules | null }>(
        'select upload_rules from request_item where id = ? and request_id = ? and deleted_at is null',
        [itemId, session.requestId],
      )
    : [];
  return saveUpload(ctx, upload, uploadRuleFor(rules?.upload_rules ?? null, upload.name), async (tx, file) => {
    const request = await lockRequest(tx, ctx);
    const item = await itemOf(tx, request, itemId, kind);
    if (item.form && !item.form.allowFileUpload) {
      throw AppError.validation([
        { field: ['file'], message: 'This item asks for its form to be filled in, not for files', code: 'INVALID' },
      ]);
    }
    const maxFiles = maxFilesOf(item.uploadRules ?? null, ctx.settings.maxFilesPerItem);
    if ((await documentCount(tx, item.id)) >= maxFiles) {
      throw AppError.validation([
        { field: ['file'], message: `This item takes at most ${maxFiles} files`, code: 'TOO_MANY' },
      ]);
    }
    // A form item is done (or not applicable) by its answers; files only go with them.
    const changes: ItemChanges | null = item.form ? null : { status: completed(item), isNa: false };
    const [document] = await tx.insert(Document, [
      { organization: request.organization, request: request.id, item: item.id, file: file.id, recipient: session.id },
    ]);
    if (changes) await changeItem(tx, item, changes);
    if (first) await emitAsRecipient(tx, ctx, first.topic, first.subject);
    await emitAsRecipient(tx, ctx, 'document.uploaded', { type: 'Document', id: document.id, requestId: request.id });
    await emitAsRecipient(tx, ctx, 'item.updated', itemSubject(item));
    return document.id;
  });
}

/** Stores a file the recipient submits to an UPLOAD item (the multipart path and the tus uploads end here). */
export const storeRecipientDocument = (ctx: PortalCtx, itemId: string, upload: IncomingFile): Promise<string> =>
  storeDocument(ctx, itemId, upload, 'UPLOAD');

/** Keeps a signed contract as the document of its E_SIGNATURE item. */
export const storeSignedDocument = (
  ctx: PortalCtx,
  itemId: string,
  contractId: string,
  signed: IncomingFile,
): Promise<string> =>
  storeDocument(ctx, itemId, signed, 'E_SIGNATURE', {
    topic: 'contract.signed',
    subject: { type: 'Contract', id: contractId, requestId: sessionOf(ctx.viewer).requestId },
  });

/** Deletes a document this recipient submitted, before the submission; an item left empty is INCOMPLETE again. */
export async function deleteRecipientDocument(
  ctx: PortalCtx,
  documentId: string,
  itemId?: string | null,
): Promise<string> {
  const session = sessionOf(ctx.viewer);
  return deleteReferences(ctx, async (tx) => {
    const request = await lockRequest(tx, ctx);
    if (itemId != null) await itemOf(tx, request, itemId);
    const [document] = isUuid(documentId)
      ? await tx.records(
          Document,
          'select * from document where id = ? and request_id = ? and recipient_id = ? limit 1',
          [documentId, request.id, session.id],
        )
      : [];
    if (!document || (itemId != null && document.item.id !== itemId)) throw AppError.notFound('Document');
    const [item] = await tx.records(RequestItem, 'select * from request_item where id = ? limit 1', [document.item.id]);
    await tx.execute('delete from document where id = ?', [document.id]);
    if (item.status === 'COMPLETE' && !item.isNa && !item.form && (await documentCount(tx, item.id)) === 0)
      await changeItem(tx, item, { status: itemTransition(item.status, 'undo') });
    await emitAsRecipient(tx, ctx, 'item.updated', itemSubject(item));
    return { result: documentId, fileIds: [document.file.id] };
  });
}

/** Answers a question item. */
export async function answerItem(ctx: PortalCtx, itemId: string, answer: string): Promise<string> {
  const text = answer.trim();
  if (!text) throw AppError.validation([{ field: ['answer'], message: 'The answer is blank', code: 'REQUIRED' }]);
  if (text.length > MAX_ANSWER)
    throw AppError.validation([
      { field: ['answer'], message: `An answer has at most ${MAX_ANSWER} characters`, code: 'TOO_LONG' },
    ]);
  return ctx.db.transaction(async (tx) => {
    const request = await lockRequest(tx, ctx);
    const item = await itemOf(tx, request, itemId, 'QUESTION');
    await changeItem(tx, item, { status: completed(item), answer: text, isNa: false });
    await emitAsRecipient(tx, ctx, 'item.updated', itemSubject(item));
    return item.id;
  });
}

/** Fills in an UPLOAD item's form (replacing earlier answers); the item is done. */
export async function fillForm(ctx: PortalCtx, itemId: string, answers: unknown): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const request = await lockRequest(tx, ctx);
    const item = await itemOf(tx, request, itemId, 'UPLOAD');
    if (!item.form)
      throw AppError.validation([{ field: ['itemId'], message: 'This item has no form', code: 'INVALID' }]);
    await changeItem(tx, item, { formAnswers: readAnswers(item.form, answers), status: completed(item), isNa: false });
    await emitAsRecipient(tx, ctx, 'item.updated', itemSubject(item));
    return item.id;
  });
}

/**
 * Marks an optional item not applicable (COMPLETE), or applicable again (INCOMPLETE unless something was submitted to
 * it).
 */
export async function setNotApplicable(ctx: PortalCtx, itemId: string, isNa: boolean): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const request = await lockRequest(tx, ctx);
    const item = await itemOf(tx, request, itemId);
    if (item.required)
      throw AppError.validation([
        { field: ['isNa'], message: 'A required item cannot be marked not applicable', code: 'INVALID' },
      ]);
    let status = item.status;
    if (isNa) status = completed(item);
    else if (
      item.isNa &&
      item.status === 'COMPLETE' &&
      !item.answer &&
      !item.formAnswers &&
      (await documentCount(tx, item.id)) === 0
    )
      status = itemTransition(item.status, 'undo');
    await changeItem(tx, item, { status, isNa });
    await emitAsRecipient(tx, ctx, 'item.updated', itemSubject(item));
    return item.id;
  });
}

/**
 * Submits the request: SUBMITTED (UPDATED_AND_SUBMITTED after an earlier submission) when every required
 * item is done, COMPLETE_AND_SUBMITTED when every item is, PARTIALLY_SUBMITTED otherwise unless the
 * request requires a complete submission. The owner and collaborators are told.
 */
export async function submitRequest(ctx: PortalCtx, comment: string | null | undefined): Promise<void> {
  const session = sessionOf(ctx.viewer);
  const text = comment?.trim() || null;
  if (text && text.length > MAX_SUBMISSION_COMMENT) {
    throw AppError.validation([
      { field: ['comment'], message: `A comment has at most ${MAX_SUBMISSION_COMMENT} characters`, code: 'TOO_LONG' },
    ]);
  }
  await ctx.db.transaction(async (tx) => {
    const request = await lockRequest(tx, ctx);
    if (text && request.disableSubmissionComments) {
      throw AppError.validation([
        { field: ['comment'], message: 'This request takes no submission comment', code: 'INVALID' },
      ]);
    }
    const items = await tx.records(
      RequestItem,
      'select * from request_item where request_id = ? and deleted_at is null',
      [request.id],
    );
    const counts = new Map(
      (
        await tx.rows<{ item_id: string; n: number }>(
          'select item_id, count(*)::int as n from document where request_id = ? group by item_id',
          [request.id],
        )
      ).map((row) => [row.item_id, row.n]),
    );
    const short = items.filter(
      (item) => !item.isNa && fewerThanLeast(item.uploadRules ?? null, item.required, counts.get(item.id) ?? 0),
    );
    if (short.length) {
      throw AppError.validation([
        {
          field: [],
          message: `Some items need more files first: ${short.map((item) => `${item.name} (at least ${item.uploadRules!.minFiles})`).join(', ')}`,
          code: 'INVALID_STATE',
        },
      ]);
    }
    const missing = items.filter((item) => item.required && !isDone(item));
    if (missing.length && request.requireCompleteSubmission) {
      throw AppError.validation([
        {
          field: [],
          message: `Every required item must be done first: ${missing.map((item) => item.name).join(', ')}`,
          code: 'INVALID_STATE',
        },
      ]);
    }
    const outcome: SubmissionOutcome = isComplete(progressOf(items))
      ? 'COMPLETE'
      : missing.length === 0
        ? 'REQUIRED_COMPLETE'
        : 'PARTIAL';
    const trigger: RequestTrigger =
      outcome === 'COMPLETE'
        ? 'submit-complete'
        : outcome === 'REQUIRED_COMPLETE'
          ? 'submit-required-complete'
          : 'submit-partial';
    const submitted = await tx.update(Request, request.id, {
      state: transition(request.state, trigger, { submittedBefore: request.firstSubmittedAt != null }),
      firstSubmittedAt: request.firstSubmittedAt ?? ctx.settings.clock.now(),
      // The owner has not seen this submission yet, and the last rejection is answered.
      ownerOpened: false,
      rejection: null,
    });
    await tx.insert(Submission, [
      { organization: request.organization, request: request.id, recipient: session.id, outcome, comment: text },
    ]);
    await queueOwnerNotices(
      tx,
      ctx,
      submitted,
      session.id,
      outcome === 'COMPLETE' ? 'REQUEST_COMPLETED' : 'REQUEST_SUBMITTED',
    );
    const subject = { type: 'Request', id: request.id, requestId: request.id };
    await emitAsRecipient(
      tx,
      ctx,
      outcome === 'COMPLETE' ? ['request.submitted', 'request.completed'] : 'request.submitted',
      subject,
    );
  });
}

/** "Submitted" or "completed" mail to the owner and each collaborator with an email address. */
async function queueOwnerNotices(
  tx: Tx,
  ctx: PortalCtx,
  request: RequestRow,
  recipientId: string,
  kind: 'REQUEST_SUBMITTED' | 'REQUEST_COMPLETED',
): Promise<void> {
  const users = await tx.rows<{ id: string; email: string; recipient_name: string }>(
    `select u.id, u.email, coalesce(nullif(concat_ws(' ', rc.first_name, rc.last_name), ''), rc.email, rc.phone, 'A recipient') as recipient_name
       from app_user u cross join recipient rc
      where rc.id = ? and u.email is not null
        and (u.id = ? or u.id in (select c.user_id from collaborator c where c.request_id = ?))`,
    [recipientId, request.owner.id, request.id],
  );
  for (const user of users) {
    await queueNotification(tx, ctx.settings.secret, {
      organizationId: request.organization.id,
      requestId: request.id,
      to: { userId: user.id },
      channel: 'EMAIL',
      address: user.email,
      language: request.language,
      kind,
      params: { requestName: request.name, recipientName: user.recipient_name, requestId: request.id },
      secrets: {},
    });
  }
}

/** A stored file by its id (the row referring to it vouches for it). */
export async function storedFile(db: Reader, id: string): Promise<StoredFileRow> {
  const [file] = await db.records(StoredFile, 'select * from stored_file where id = ? limit 1', [id]);
  if (!file) throw new Error(`StoredFile ${id} not found`);
  return file;
}

/** A file of the session's request the recipient may download: an owner's attachment, or a document. */
export async function recipientFile(
  ctx: Pick<PortalCtx, 'db' | 'viewer'>,
  kind: 'attachments' | 'documents',
  id: string,
): Promise<{ fileId: string }> {
  const session = sessionOf(ctx.viewer);
  const table = kind === 'attachments' ? 'attachment' : 'document';
  const [row] = isUuid(id)
    ? await ctx.db.rows<{ file_id: string }>(`select file_id from ${table} where id = ? and request_id = ?`, [
        id,
        session.requestId,
      ])
    : [];
  if (!row) throw AppError.notFound(kind === 'attachments' ? 'Attachment' : 'Document');
  return { fileId: row.file_id };
}
