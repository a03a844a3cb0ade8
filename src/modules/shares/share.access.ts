import type { Reader } from '../../kernel/db/db';
import {
  SIGN_IN_COLUMNS,
  signInFields,
  type SignInKind,
  type SignInLink,
  type SignInRow,
} from '../portal/portal.access';
import { sha256Hex } from '../recipients/recipient-link';
import type { ShareStatus } from './share.entities';

// A share's recipient signs in exactly as a request's does (portal.access.ts): the same steps, codes,
// lockouts and sessions, in the share_recipient_* tables. Its link opens the share until the share
// expires or its files are deleted.

/** A share's link: who stands behind it, and what the page shows before sign-in. */
export type ShareLink = SignInLink & {
  shareId: string;
  title: string;
  organizationName: string;
  ownerName: string;
  status: ShareStatus;
  deletionDate: Date | null;
};

/** Why a share's link no longer opens it, or null while it does. */
export function shareEnded(
  link: Pick<ShareLink, 'status' | 'expirationDate' | 'deletionDate'>,
  now: Date,
): 'EXPIRED' | 'DELETED' | null {
  if (link.status === 'DELETED' || (link.deletionDate && link.deletionDate <= now)) return 'DELETED';
  if (link.status === 'EXPIRED' || (link.expirationDate && link.expirationDate <= now)) return 'EXPIRED';
  return null;
}

export const SHARE_SIGN_IN: SignInKind<ShareLink> = {
  tables: 'share_recipient',
  tokenPrefix: 'gss_',
  ended: (link, now) => {
    const ended = shareEnded(link, now);
    return ended && (ended === 'DELETED' ? "This share's files were deleted" : 'This share has expired');
  },
  // The share's code goes to an address: no request, no request recipient.
  codeMessage: () => ({ requestId: null, to: { address: true } }),
  // The sign-in is the session row itself (with its address and user agent): the download log says the rest.
  signedIn: async () => {},
};

type LinkRow = SignInRow & {
  share_id: string;
  title: string;
  organization_name: string;
  owner_name: string;
  deletion_date: Date | null;
  status: ShareStatus;
};

/** The link's recipient and share; null for a token that names none (unknown, or a share not sent yet). */
export async function findShareLink(db: Reader, token: string): Promise<ShareLink | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const [row] = await db.rows<LinkRow>(
    `select ${SIGN_IN_COLUMNS}, s.id as share_id, s.organization_id, s.title, o.name as organization_name,
            coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.email) as owner_name, s.expiration_date, s.deletion_date, s.language, s.status
       from share_recipient rc
       join share s on s.id = rc.share_id
       join organization o on o.id = s.organization_id
       join app_user u on u.id = s.owner_id
       left join organization_settings os on os.organization_id = s.organization_id
      where rc.token_hash = ? and s.status <> 'DRAFT'`,
    [sha256Hex(token)],
  );
  if (!row) return null;
  return {
    ...signInFields(row),
    kind: SHARE_SIGN_IN,
    subjectName: row.title,
    mfaEnabled: false,
    shareId: row.share_id,
    title: row.title,
    organizationName: row.organization_name,
    ownerName: row.owner_name,
    deletionDate: row.deletion_date,
    status: row.status,
  };
}

/** The share recipient a session token signs in now, if any. */
export async function findShareSession(db: Reader, token: string, now: Date): Promise<{ recipientId: string } | null> {
  if (!token.startsWith(SHARE_SIGN_IN.tokenPrefix)) return null;
  const [row] = await db.rows<{ recipient_id: string }>(
    `select s.recipient_id from share_recipient_session s join share_recipient sr on sr.id = s.recipient_id
      where s.token_hash = ? and s.expires_at > ? and s.link_hash = sr.token_hash`,
    [sha256Hex(token), now],
  );
  return row ? { recipientId: row.recipient_id } : null;
}
