import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findLean } from '../../kernel/db/lean';
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
 * The request, if the viewer may see it; null otherwise (missing, deleted, another organization's),
 * as a read-only row from a statement written out (kernel/db/lean.ts): building it with a
 * QueryBuilder was a tenth of a by-id read's CPU in profiles.
 */
export async function findVisibleRequest(
  em: EntityManager,
  viewer: Viewer,
  id: string,
  options: { includeDeleted?: boolean; forUpdate?: boolean } = {},
): Promise<RequestRow | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = requestVisibility('r', viewer, options);
  return (
    (
      await findLean(
        em,
        Request,
        `select r.* from request r where r.id = ? and ${sql}${options.forUpdate ? ' for update' : ''}`,
        [id, ...params],
      )
    )[0] ?? null
  );
}

/**
 * The request as a managed entity, its row locked until the transaction ends (so concurrent changes
 * to one request apply one after the other), if the viewer may see it; for writers.
 */
export async function findVisibleRequestForUpdate(
  em: EntityManager,
  viewer: Viewer,
  id: string,
): Promise<Request | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = requestVisibility('r', viewer);
  return em
    .createQueryBuilder(Request, 'r')
    .select('*')
    .where({ id })
    .andWhere(sql, params)
    .setLockMode(LockMode.PESSIMISTIC_WRITE)
    .getSingleResult();
}

/**
 * The request an event happened on, as a subscriber may see it now (deleted ones too, so deletion
 * events can show what went): the records of events on requests are visible through it.
 */
export function findEventRequest(
  ctx: { em: EntityManager; viewer: Viewer },
  event: { requestId: string | null; organizationId: string; record?: object },
): Promise<RequestRow | null> {
  if (!event.requestId) return Promise.resolve(null);
  // The request as this instance's own change wrote it: no read back for a subscriber who sees it
  // by its organization, ownership or team (a collaboration is known only to the database).
  const written = event.record as RequestRow | undefined;
  if (
    written?.id === event.requestId &&
    event.organizationId === ctx.viewer.organizationId &&
    canDeleteRequest(ctx.viewer, written)
  )
    return Promise.resolve(written);
  return findVisibleRequest(ctx.em, ctx.viewer, event.requestId, { includeDeleted: true });
}

export async function requireVisibleRequest(em: EntityManager, viewer: Viewer, id: string): Promise<RequestRow> {
  const request = await findVisibleRequest(em, viewer, id);
  if (!request) throw AppError.notFound('Request');
  return request;
}

export async function requireVisibleRequestForUpdate(em: EntityManager, viewer: Viewer, id: string): Promise<Request> {
  const request = await findVisibleRequestForUpdate(em, viewer, id);
  if (!request) throw AppError.notFound('Request');
  return request;
}

/**
 * The request as a read-only row, locked until the transaction ends, if the viewer may see it: for a
 * writer that saves its changes with `updateRecord` (kernel/db/lean.ts) rather than through a managed
 * entity, whose QueryBuilder, change set and flush were a fifth of a PATCH's CPU in profiles.
 */
export async function requireVisibleRequestRowForUpdate(
  em: EntityManager,
  viewer: Viewer,
  id: string,
): Promise<RequestRow> {
  const request = await findVisibleRequest(em, viewer, id, { forUpdate: true });
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
