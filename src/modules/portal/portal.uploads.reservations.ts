import type { UnfinishedUploadBytes } from '../../config/config';
import type { Reader } from '../../kernel/db/db';
import { PartialUpload } from './portal.entities';
import { MAX_PARTIAL_UPLOADS, PARTIAL_UPLOAD_EXPIRY_HOURS } from './portal.uploads.limits';

// The unfinished resumable uploads, as the upload limits count them: per link, and their declared bytes
// per organization and in all. A creation counts and records its upload in one transaction under one
// advisory lock, the same on every instance (the total spans every link and organization), so that
// concurrent creations cannot all pass one count.

const EXPIRY_MS = PARTIAL_UPLOAD_EXPIRY_HOURS * 3_600_000;

export type NewPartialUpload = { id: string; itemId: string; linkTag: string; length: number };
export type Refusal = { status: number; detail: string };

/** Records `upload` as unfinished, or answers why it is not taken (the limits it would pass). */
export async function reservePartialUpload(
  db: Reader,
  upload: NewPartialUpload,
  limits: UnfinishedUploadBytes,
): Promise<Refusal | null> {
  // Larger alone than what may be unfinished at once: it would never be taken.
  if (upload.length > Math.min(limits.organization, limits.total))
    return {
      status: 413,
      detail: `Upload-Length is more than the ${Math.min(limits.organization, limits.total)} bytes of unfinished uploads allowed at once`,
    };
  return db.transaction(async (tx) => {
    const [item] = await tx.rows<{ organization_id: string }>('select organization_id from request_item where id = ?', [
      upload.itemId,
    ]);
    await tx.rows("select pg_advisory_xact_lock(hashtextextended('partial_upload', 0))");
    // Uploads past their expiry count no more, whether or not the sweep has deleted them yet.
    const [held] = await tx.rows<{ link: number; organization: number; total: number }>(
      `select count(*) filter (where link_tag = ?)::int as link,
              coalesce(sum(length) filter (where organization_id = ?), 0)::float8 as organization,
              coalesce(sum(length), 0)::float8 as total
         from partial_upload where created_at > ?`,
      [upload.linkTag, item.organization_id, new Date(Date.now() - EXPIRY_MS)],
    );
    if (held.link >= MAX_PARTIAL_UPLOADS)
      return {
        status: 429,
        detail: `At most ${MAX_PARTIAL_UPLOADS} unfinished uploads per link; finish or cancel one first`,
      };
    if (held.organization + upload.length > limits.organization)
      return {
        status: 429,
        detail: 'Too many unfinished uploads for this organization at the moment; try again later',
      };
    if (held.total + upload.length > limits.total)
      return { status: 429, detail: 'Too many unfinished uploads at the moment; try again later' };
    await tx.insert(PartialUpload, [
      { id: upload.id, organization: item.organization_id, linkTag: upload.linkTag, length: upload.length },
    ]);
    return null;
  });
}

/** Forgets an upload that finished, was cancelled or never came to be. */
export async function releasePartialUpload(db: Reader, id: string): Promise<void> {
  await db.transaction((tx) => tx.execute('delete from partial_upload where id = ?', [id]));
}

/** Forgets the uploads past their expiry (the upload store deletes their bytes). */
export async function forgetExpiredPartialUploads(db: Reader): Promise<void> {
  await db.transaction((tx) =>
    tx.execute('delete from partial_upload where created_at <= ?', [new Date(Date.now() - EXPIRY_MS)]),
  );
}
