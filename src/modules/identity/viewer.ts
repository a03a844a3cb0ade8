import type { Reader } from '../../kernel/db/db';
import type { SharedCaches } from '../../kernel/db/shared-cache';
import { hashApiKey } from './api-key';
import type { Viewer } from '../../kernel/graphql/context';
import type { UserRole } from './identity.entities';

declare module '../../kernel/graphql/context' {
  /** The caller of an operation, resolved from its API key. Every read and write is scoped by it. */
  interface Viewer {
    userId: string;
    organizationId: string;
    teamId: string | null;
    role: UserRole;
    apiKeyId: string;
  }
}

export type { Viewer } from '../../kernel/graphql/context';

export const isAdmin = (viewer: Viewer): boolean => viewer.role === 'ADMIN';

/** A user as the records it owns name it (requests, contacts): the key lookup already knows the caller's. */
export type UserRef = { id: string; organizationId: string; teamId: string | null };

export const userRefOf = (viewer: Viewer): UserRef => ({
  id: viewer.userId,
  organizationId: viewer.organizationId,
  teamId: viewer.teamId,
});

type ViewerRow = {
  user_id: string;
  organization_id: string;
  team_id: string | null;
  role: UserRole;
  api_key_id: string;
};

/**
 * One statement, the key, its user and the user's organization, or none when `caches` holds the key:
 * the instance keeps a key's caller until api_key or app_user change anywhere (a revoked key, a new
 * role or team), so a revoked key is refused as soon as the revoke commits.
 */
export async function findViewerByApiKey(db: Reader, key: string, caches?: SharedCaches): Promise<Viewer | null> {
  const hash = hashApiKey(key);
  const load = () => viewerOfKey(db, hash);
  const viewer = caches
    ? await caches.of<Viewer | null>('viewer', ['api_key', 'app_user']).get(hash, load)
    : await load();
  // A copy per request: the cached one is shared.
  return viewer && { ...viewer, actor: { ...viewer.actor } };
}

async function viewerOfKey(db: Reader, hash: string): Promise<Viewer | null> {
  const rows = await db.rows<ViewerRow>(
    `select u.id as user_id, u.organization_id, u.team_id, u.role, k.id as api_key_id
       from api_key k join app_user u on u.id = k.user_id
      where k.key_hash = ? and k.revoked_at is null`,
    [hash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    userId: row.user_id,
    organizationId: row.organization_id,
    teamId: row.team_id,
    role: row.role,
    apiKeyId: row.api_key_id,
    actor: { type: 'USER', id: row.user_id },
  };
}
