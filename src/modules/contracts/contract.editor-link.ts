import { createHmac } from 'node:crypto';
import { sameSecret } from '../../kernel/crypto/same-secret';
import type { ServiceSettings } from '../../kernel/graphql/context';
import { CONTRACT_EDITOR_LINK_HOURS } from './contract.limits';

// A contract's `annotationUrl` (spec 2.8): a link that opens its editor in a browser with no header to set. It
// carries when it ends and who read it, signed with the server secret: the editor acts as that user, on that
// contract only, until then. Nothing is stored, so a link cannot be revoked before it ends; it is short-lived.

type LinkSettings = Pick<ServiceSettings, 'publicUrl' | 'secret' | 'clock'>;

const HOUR_MS = 3_600_000;

/** The editor's page for a contract; without a token it sends a signed-in owner through the console for one. */
export const editorPath = (contractId: string): string => `/contracts/${contractId}/edit`;

const signature = (secret: string, contractId: string, userId: string, endsAt: number): string =>
  createHmac('sha256', secret).update(`contract-editor:${contractId}:${userId}:${endsAt}`).digest('base64url');

/** The editor link for `userId`, ending CONTRACT_EDITOR_LINK_HOURS after the next whole hour (reads agree). */
export function editorLink(settings: LinkSettings, contractId: string, userId: string): string {
  const hour = Math.ceil(settings.clock.now().getTime() / HOUR_MS) * HOUR_MS;
  const endsAt = (hour + CONTRACT_EDITOR_LINK_HOURS * HOUR_MS) / 1000;
  const sig = signature(settings.secret, contractId, userId, endsAt);
  return `${settings.publicUrl}${editorPath(contractId)}?token=${endsAt}.${userId}.${sig}`;
}

export type EditorGrant = { userId: string } | 'expired' | 'invalid';

/** Whom an editor link's token lets edit `contractId` now; `expired` once its end passed (a new one is offered). */
export function readEditorToken(settings: LinkSettings, contractId: string, token: string): EditorGrant {
  const match = /^(\d{1,12})\.([0-9a-f-]{36})\.([\w-]{43})$/.exec(token);
  if (!match) return 'invalid';
  const [, ends, userId, sig] = match;
  if (!sameSecret(sig, signature(settings.secret, contractId, userId, Number(ends)))) return 'invalid';
  return Number(ends) * 1000 > settings.clock.now().getTime() ? { userId } : 'expired';
}
