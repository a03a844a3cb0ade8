import { randomUUID } from 'node:crypto';
import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { ShareCreateInput, ShareUpdateInput } from '../../generated/resolvers-types';
import type { GraphQLContext, Viewer } from '../../kernel/graphql/context';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import type { IncomingFile } from '../../kernel/http/files';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { MAX_PERSON_NAME } from '../../kernel/limits';
import { deleteReferences, saveUpload } from '../files/file.service';
import { isAdmin } from '../identity/viewer';
import { settingsOf } from '../organizations/organization.service';
import { queueNotification } from '../notifications/notification.service';
import { answerHash, linkToken, newLinkNonce, recipientPassword, sha256Hex } from '../recipients/recipient-link';
import type { SendMethod } from '../recipients/recipient.enums';
import { cancelJob, planJob } from '../schedule/schedule.service';
import {
  Share,
  ShareDownload,
  ShareRecipient,
  type ShareDownloadRow,
  type ShareRecipientRow,
  type ShareRow,
  type ShareStatus,
} from './share.entities';
import {
  MAX_SHARE_BYTES,
  MAX_SHARE_FILES,
  MAX_SHARE_MESSAGE,
  MAX_SHARE_QUESTION,
  MAX_SHARE_RECIPIENTS,
  MAX_SHARE_TITLE,
} from './share.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings' | 'storage' | 'log' | 'loaders'>;

// A share is its owner's; an ADMIN sees every share of its organization, a USER its own (as with
// requests, a share the caller may not see is "not found").

/** A share's file as GraphQL shows it: the share's row and its stored file's facts. */
export type ShareFileView = {
  id: string;
  shareId: string;
  fileId: string;
  storageKey: string;
  name: string;
  mimeType: string;
  size: number;
  sha256: string;
  createdAt: Date;
};

/** Where a share's recipient opens it. */
export const shareLink = (publicUrl: string, token: string) => `${publicUrl}/s/${token}`;

const visible = (viewer: Viewer) =>
  isAdmin(viewer)
    ? { sql: 's.organization_id = ?', params: [viewer.organizationId] }
    : { sql: 's.organization_id = ? and s.owner_id = ?', params: [viewer.organizationId, viewer.userId] };

export async function getShare(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ShareRow | null> {
  if (!isUuid(id)) return null;
  const where = visible(ctx.viewer);
  const [share] = await ctx.db.records(Share, `select s.* from share s where s.id = ? and ${where.sql}`, [
    id,
    ...where.params,
  ]);
  return share ?? null;
}

export function listShares(ctx: Pick<Ctx, 'db' | 'viewer'>, args: PageArgs): Promise<Connection<ShareRow>> {
  const where = visible(ctx.viewer);
  return paginate(
    { db: ctx.db, entity: Share, sql: `select s.* from share s where ${where.sql}`, params: where.params },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'DESC' },
  );
}

export function listDownloads(
  ctx: Pick<Ctx, 'db'>,
  share: { id: string },
  args: PageArgs,
): Promise<Connection<ShareDownloadRow>> {
  return paginate(
    {
      db: ctx.db,
      entity: ShareDownload,
      sql: 'select d.* from share_download d where d.share_id = ?',
      params: [share.id],
    },
    args,
    {
      property: 'downloadedAt',
      column: 'downloaded_at',
      direction: 'DESC',
    },
  );
}

/** A download of a share the caller sees (`node(id)`). */
export async function getShareDownload(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ShareDownloadRow | null> {
  if (!isUuid(id)) return null;
  const where = visible(ctx.viewer);
  const [download] = await ctx.db.records(
    ShareDownload,
    `select d.* from share_download d join share s on s.id = d.share_id where d.id = ? and ${where.sql}`,
    [id, ...where.params],
  );
  return download ?? null;
}

/** The share, locked for the rest of the transaction: 404 unless the caller sees it. */
async function requireShareForUpdate(tx: Tx, viewer: Viewer, id: string): Promise<ShareRow> {
  const where = visible(viewer);
  const [share] = isUuid(id)
    ? await tx.records(Share, `select s.* from share s where s.id = ? and ${where.sql} for update`, [
        id,
        ...where.params,
      ])
    : [];
  if (!share) throw AppError.notFound('Share');
  return share;
}

/** A share whose files are gone or whose page has ended takes no files and is not sent. */
function requireLive(share: Pick<ShareRow, 'status'>, action: string): void {
  if (share.status === 'EXPIRED' || share.status === 'DELETED')
    throw AppError.invalidState(`A share in status ${share.status} cannot ${action}`);
}

/** Dates in the future, the deletion not before the expiration (each checked where it is given). */
function checkDates(
  check: InputCheck,
  now: Date,
  dates: { expirationDate?: Date | null; deletionDate?: Date | null },
  effective: { expirationDate: Date | null; deletionDate: Date | null },
): void {
  for (const key of ['expirationDate', 'deletionDate'] as const) {
    const value = dates[key];
    check.date([key], value);
    if (value && value.getTime() <= now.getTime()) check.add([key], 'Must be in the future', 'OUT_OF_RANGE');
  }
  if (effective.deletionDate && effective.expirationDate && effective.deletionDate < effective.expirationDate) {
    check.add(['deletionDate'], 'Must not come before expirationDate', 'OUT_OF_RANGE');
  }
}

/** Plans (or moves, or cancels) the share's expiration and deletion in the caller's transaction. */
async function planShareJobs(
  tx: Tx,
  now: Date,
  share: Pick<ShareRow, 'id' | 'organization' | 'expirationDate' | 'deletionDate'>,
): Promise<void> {
  for (const [kind, dueAt] of [
    ['SHARE_EXPIRE', share.expirationDate],
    ['SHARE_DELETE', share.deletionDate],
  ] as const) {
    await planJob(tx, now, {
      organizationId: share.organization.id,
      requestId: null,
      kind,
      key: `${kind.toLowerCase()}:${share.id}`,
      dueAt: dueAt ?? null,
      payload: { shareId: share.id },
    });
  }
}

export async function createShare(ctx: Ctx, input: ShareCreateInput): Promise<ShareRow> {
  const now = ctx.settings.clock.now();
  const check = new InputCheck();
  check
    .text(['title'], input.title, { max: MAX_SHARE_TITLE, min: 1, required: true })
    .text(['customMessage'], input.customMessage, { max: MAX_SHARE_MESSAGE });
  check.count(['recipients'], input.recipients, { max: MAX_SHARE_RECIPIENTS, min: 1 });
  checkDates(check, now, input, {
    expirationDate: input.expirationDate ?? null,
    deletionDate: input.deletionDate ?? null,
  });
  input.recipients.forEach((recipient, index) => {
    const path = ['recipients', index];
    check
      .email([...path, 'email'], recipient.email)
      .phone([...path, 'phone'], recipient.phone)
      .text([...path, 'firstName'], recipient.firstName, { max: MAX_PERSON_NAME })
      .text([...path, 'lastName'], recipient.lastName, { max: MAX_PERSON_NAME })
      .int([...path, 'completionOrder'], recipient.completionOrder, { min: 0, max: MAX_SHARE_RECIPIENTS });
    if (!recipient.email && !recipient.phone)
      check.add([...path, 'email'], 'A recipient needs an email or a phone', 'REQUIRED');
    const auth = recipient.authMethod;
    if (auth) {
      check
        .text([...path, 'authMethod', 'questionText'], auth.questionText, { max: MAX_SHARE_QUESTION })
        .text([...path, 'authMethod', 'questionAnswer'], auth.questionAnswer, { max: MAX_SHARE_QUESTION });
      if (auth.type === 'SECURITY_QUESTION' && (!auth.questionText?.trim() || !auth.questionAnswer?.trim())) {
        check.add([...path, 'authMethod'], 'A security question needs questionText and questionAnswer', 'REQUIRED');
      }
      if (auth.type === 'EMAIL' && !recipient.email)
        check.add([...path, 'authMethod'], 'Codes by email need an email', 'INVALID');
      if (auth.type === 'SMS' && !recipient.phone)
        check.add([...path, 'authMethod'], 'Codes by SMS need a phone', 'INVALID');
    }
  });
  check.done();
  // A share in no language named speaks the organization's default, as a request does.
  const language =
    input.language ?? (await settingsOf(ctx.db, ctx.viewer.organizationId, ctx.settings.caches)).defaultLanguage;
  return ctx.db.transaction(async (tx) => {
    const [share] = await tx.insert(Share, [
      {
        organization: ctx.viewer.organizationId,
        owner: ctx.viewer.userId,
        title: input.title.trim(),
        customMessage: input.customMessage ?? null,
        language,
        sendMethod: input.sendMethod ?? 'DEFAULT',
        status: 'DRAFT',
        expirationDate: input.expirationDate ?? null,
        deletionDate: input.deletionDate ?? null,
        sentAt: null,
        filesDeletedAt: null,
      },
    ]);
    await tx.insert(
      ShareRecipient,
      input.recipients.map((recipient, position) => {
        // The link secrets derive from the id, so it is chosen here rather than by the record's default.
        const id = randomUUID();
        const nonce = newLinkNonce();
        const auth = recipient.authMethod;
        return {
          id,
          organization: share.organization,
          share: share.id,
          email: recipient.email?.trim() ?? null,
          firstName: recipient.firstName ?? null,
          lastName: recipient.lastName ?? null,
          phone: recipient.phone ?? null,
          authMethod: auth?.type ?? 'UNSET',
          questionText: auth?.type === 'SECURITY_QUESTION' ? auth.questionText!.trim() : null,
          questionAnswerHash:
            auth?.type === 'SECURITY_QUESTION' ? answerHash(ctx.settings.secret, id, auth.questionAnswer!) : null,
          sendMethod: recipient.sendMethod ?? 'DEFAULT',
          completionOrder: recipient.completionOrder ?? null,
          position,
          linkNonce: nonce,
          tokenHash: sha256Hex(linkToken(ctx.settings.secret, id, nonce)),
          passwordHash: sha256Hex(recipientPassword(ctx.settings.secret, id, nonce)),
        };
      }),
    );
    await planShareJobs(tx, now, share);
    return share;
  });
}

export async function updateShare(ctx: Ctx, id: string, input: ShareUpdateInput): Promise<ShareRow> {
  const now = ctx.settings.clock.now();
  return ctx.db.transaction(async (tx) => {
    const share = await requireShareForUpdate(tx, ctx.viewer, id);
    const check = new InputCheck();
    check
      .text(['title'], input.title, { max: MAX_SHARE_TITLE, min: 1 })
      .text(['customMessage'], input.customMessage, { max: MAX_SHARE_MESSAGE });
    if (input.title === null) check.add(['title'], 'Cannot be null', 'INVALID');
    if (input.language === null) check.add(['language'], 'Cannot be null', 'INVALID');
    const expirationDate = input.expirationDate !== undefined ? input.expirationDate : share.expirationDate;
    const deletionDate = input.deletionDate !== undefined ? input.deletionDate : share.deletionDate;
    checkDates(check, now, input, { expirationDate: expirationDate ?? null, deletionDate: deletionDate ?? null });
    check.done();
    requireLive(share, 'change');
    const updated = await tx.update(Share, share.id, {
      title: input.title != null ? input.title.trim() : undefined,
      customMessage: input.customMessage,
      language: input.language ?? undefined,
      expirationDate: expirationDate ?? null,
      deletionDate: deletionDate ?? null,
      updatedAt: now,
    });
    await planShareJobs(tx, now, updated);
    return updated;
  });
}

/**
 * The channels a recipient is told by: as a request's recipient is (email unless SMS alone; SMS when asked or without
 * email).
 */
function channelsOf(
  recipient: Pick<ShareRecipientRow, 'email' | 'phone'>,
  method: SendMethod,
): ['EMAIL' | 'SMS', string][] {
  const channels: ['EMAIL' | 'SMS', string][] = [];
  if (recipient.email && (method !== 'SMS' || !recipient.phone)) channels.push(['EMAIL', recipient.email]);
  if (recipient.phone && (['SMS', 'BOTH', 'MULTIPLE'].includes(method) || !recipient.email))
    channels.push(['SMS', recipient.phone]);
  return channels;
}

/** Mails (or texts) every recipient its link, in the transaction that marks the share SENT. */
export async function sendShare(ctx: Ctx, id: string): Promise<ShareRow> {
  const now = ctx.settings.clock.now();
  return ctx.db.transaction(async (tx) => {
    const share = await requireShareForUpdate(tx, ctx.viewer, id);
    requireLive(share, 'be sent');
    const [{ count }] = await tx.rows<{ count: number }>(
      'select count(*)::int as count from share_file where share_id = ?',
      [share.id],
    );
    if (count === 0)
      throw AppError.invalidState(
        'A share without files cannot be sent: upload them with POST /shares/{id}/files first',
      );
    const [sender] = await tx.rows<{ sender_name: string; organization_name: string }>(
      `select coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email) as sender_name, o.name as organization_name
         from app_user u join organization o on o.id = ? where u.id = ?`,
      [share.organization.id, share.owner.id],
    );
    const recipients = await tx.records(
      ShareRecipient,
      'select * from share_recipient where share_id = ? order by position',
      [share.id],
    );
    for (const recipient of recipients) {
      const method = recipient.sendMethod === 'DEFAULT' ? share.sendMethod : recipient.sendMethod;
      for (const [channel, address] of channelsOf(recipient, method)) {
        await queueNotification(tx, ctx.settings.secret, {
          organizationId: share.organization.id,
          requestId: null,
          to: { address: true },
          channel,
          address,
          language: share.language,
          kind: 'SHARE_INVITATION',
          params: {
            shareTitle: share.title,
            senderName: sender.sender_name,
            organizationName: sender.organization_name,
            recipientFirstName: recipient.firstName,
            message: share.customMessage,
            fileCount: count,
            expiresAt: share.expirationDate?.toISOString() ?? null,
          },
          secrets: {
            link: shareLink(ctx.settings.publicUrl, linkToken(ctx.settings.secret, recipient.id, recipient.linkNonce)),
          },
        });
      }
    }
    return tx.update(Share, share.id, { status: 'SENT', sentAt: now, updatedAt: now });
  });
}

/** Deletes a share with its recipients, files (their bytes once no row refers to them) and download log. */
export async function deleteShare(ctx: Ctx, id: string): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const share = await requireShareForUpdate(tx, ctx.viewer, id);
    const files = await tx.rows<{ file_id: string }>('select file_id from share_file where share_id = ?', [share.id]);
    await tx.execute('delete from share where id = ?', [share.id]);
    const now = ctx.settings.clock.now();
    for (const kind of ['share_expire', 'share_delete']) await cancelJob(tx, `${kind}:${share.id}`, now);
    return { result: share.id, fileIds: files.map((f) => f.file_id) };
  });
}

/** Room left in a share: refused (422) when it holds MAX_SHARE_FILES; the bytes it may still take. */
async function roomIn(db: Reader, shareId: string): Promise<{ count: number; bytesLeft: number }> {
  const [row] = await db.rows<{ count: number; bytes: string }>(
    'select count(*)::int as count, coalesce(sum(f.size), 0) as bytes from share_file sf join stored_file f on f.id = sf.file_id where sf.share_id = ?',
    [shareId],
  );
  if (row.count >= MAX_SHARE_FILES)
    throw AppError.validation([
      { field: ['file'], message: `A share holds at most ${MAX_SHARE_FILES} files`, code: 'TOO_MANY' },
    ]);
  return { count: row.count, bytesLeft: MAX_SHARE_BYTES - Number(row.bytes) };
}

/**
 * Stores a file of a share, streamed to storage: each file up to MAX_UPLOAD_BYTES, all of a share's
 * together up to MAX_SHARE_BYTES (413 past either). Checked before the bytes are read and again, locked, after.
 */
export async function uploadShareFile(ctx: Ctx, shareId: string, upload: IncomingFile): Promise<string> {
  const where = visible(ctx.viewer);
  const [current] = isUuid(shareId)
    ? await ctx.db.rows<{ id: string; status: ShareStatus }>(
        `select s.id, s.status from share s where s.id = ? and ${where.sql}`,
        [shareId, ...where.params],
      )
    : [];
  if (!current) throw AppError.notFound('Share');
  requireLive(current, 'take files');
  const { bytesLeft } = await roomIn(ctx.db, shareId);
  if (bytesLeft <= 0)
    throw new AppError('PAYLOAD_TOO_LARGE', `A share's files take at most ${MAX_SHARE_BYTES} bytes together`);
  return saveUpload(ctx, upload, { maxBytes: bytesLeft }, async (tx, file) => {
    const share = await requireShareForUpdate(tx, ctx.viewer, shareId);
    requireLive(share, 'take files');
    const room = await roomIn(tx, share.id);
    if (room.bytesLeft < file.size)
      throw new AppError('PAYLOAD_TOO_LARGE', `A share's files take at most ${MAX_SHARE_BYTES} bytes together`);
    const id = randomUUID();
    await tx.execute(
      'insert into share_file (id, organization_id, share_id, file_id, position, created_at) values (?, ?, ?, ?, ?, ?)',
      [id, share.organization.id, share.id, file.id, room.count, ctx.settings.clock.now()],
    );
    return id;
  });
}

/** The files of shares, with their stored files' facts, in upload order (one statement per batch). */
export async function filesOfShares(db: Reader, shareIds: readonly string[]): Promise<ShareFileView[][]> {
  const rows = await db.rows<{
    id: string;
    share_id: string;
    file_id: string;
    storage_key: string;
    name: string;
    mime_type: string;
    size: number;
    sha256: string;
    created_at: Date;
  }>(
    `select sf.id, sf.share_id, sf.file_id, f.storage_key, f.name, f.mime_type, f.size, f.sha256, sf.created_at
       from share_file sf join stored_file f on f.id = sf.file_id where sf.share_id = any(?::uuid[]) order by sf.position, sf.id`,
    [shareIds],
  );
  const byShare = new Map<string, ShareFileView[]>(shareIds.map((id) => [id, []]));
  for (const row of rows) {
    byShare.get(row.share_id)?.push({
      id: row.id,
      shareId: row.share_id,
      fileId: row.file_id,
      storageKey: row.storage_key,
      name: row.name,
      mimeType: row.mime_type,
      size: row.size,
      sha256: row.sha256,
      createdAt: row.created_at,
    });
  }
  return shareIds.map((id) => byShare.get(id) ?? []);
}
