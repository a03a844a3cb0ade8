import type { Reader, Tx } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import { isUuid } from '../../kernel/validation/input-check';
import { isAdmin, type Viewer } from '../identity/viewer';
import { Request, type RequestRow } from './request.entities';

// Who sees a request: ADMIN everything of its organization; USER what it owns, its team's, and
// where it collaborates. Whoever sees a request may update it; deleting it (and changing its
// collaborators) is for ADMIN, the owner and the owner's team.

/**
 * The condition on `request` (as `alias`) that narrows rows to what the viewer may see, as SQL with
 * `?` placeholders, for every statement that reads requests: lists, lookups, locks.
 */
export function requestVisibility(
  alias: string,
  viewer: Viewer,
  options: { includeDeleted?: boolean } = {},
): { sql: string; params: unknown[] } {
  const parts = [`${alias}.organization_id = ?`];
  const params: unknown[] = [viewer.organizationId];
  if (!options.includeDeleted) parts.push(`${alias}.deleted_at is null`);
  if (!isAdmin(viewer)) {
    const collaborates = `exists (select 1 from collaborator c where c.request_id = ${alias}.id and c.organization_id = ${alias}.organization_id and c.user_id = ?)`;
    if (viewer.teamId) {
      parts.push(`(${alias}.owner_id = ? or ${alias}.team_id = ? or ${collaborates})`);
      params.push(viewer.userId, viewer.teamId, viewer.userId);
    } else {
      parts.push(`(${alias}.owner_id = ? or ${collaborates})`);
      params.push(viewer.userId, viewer.userId);
    }
  }
  return { sql: parts.join(' and '), params };
}

/**
 * The request, if the viewer may see it; null otherwise (missing, deleted, another organization's).
 * With `forUpdate` (in a transaction), its row stays locked until the transaction ends, so
 * concurrent changes to one request apply one after the other.
 */
export async function findVisibleRequest(
  db: Reader,
  viewer: Viewer,
  id: string,
  options: { includeDeleted?: boolean; forUpdate?: boolean } = {},
): Promise<RequestRow | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = requestVisibility('r', viewer, options);
  return (
    (
      await db.records(
        Request,
        `select ${db.columns(Request, null, 'r')} from request r where r.id = ? and ${sql}${options.forUpdate ? ' for update' : ''}`,
        [id, ...params],
        { prepared: true },
      )
    )[0] ?? null
  );
}

/**
 * The request an event happened on, as a subscriber may see it now (deleted ones too, so deletion
 * events can show what went): the records of events on requests are visible through it.
 */
export function findEventRequest(
  ctx: { db: Reader; viewer: Viewer },
  event: { requestId: string | null },
): Promise<RequestRow | null> {
  if (!event.requestId) return Promise.resolve(null);
  return findVisibleRequest(ctx.db, ctx.viewer, event.requestId, { includeDeleted: true });
}

export async function requireVisibleRequest(db: Reader, viewer: Viewer, id: string): Promise<RequestRow> {
  const request = await findVisibleRequest(db, viewer, id);
  if (!request) throw AppError.notFound('Request');
  return request;
}

/** The request, its row locked until the transaction ends, if the viewer may see it: for writers. */
export async function requireVisibleRequestForUpdate(tx: Tx, viewer: Viewer, id: string): Promise<RequestRow> {
  const request = await findVisibleRequest(tx, viewer, id, { forUpdate: true });
  if (!request) throw AppError.notFound('Request');
  return request;
}

export function canDeleteRequest(viewer: Viewer, request: RequestRow): boolean {
  return (
    isAdmin(viewer) ||
    request.owner.id === viewer.userId ||
    (viewer.teamId !== null && request.team?.id === viewer.teamId)
  );
}

export function requireDeleteRight(viewer: Viewer, request: RequestRow, what = 'delete this request'): void {
  if (!canDeleteRequest(viewer, request)) {
    throw AppError.forbidden(`Only the owner, the owner's team or an ADMIN may ${what}`);
  }
}
