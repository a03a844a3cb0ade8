import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AuthMethod } from './recipient.enums';

// A recipient's link token and password are derived from the server secret and a random nonce kept
// on the recipient, so they can be shown again on every read while the database holds only their
// hashes: a copy of the database alone opens no request.

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const PASSWORD_LENGTH = 14;

const derive = (secret: string, purpose: string, recipientId: string, nonce: string): Buffer =>
  createHmac('sha256', secret).update(`${purpose}:${recipientId}:${nonce}`).digest();

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

export const newLinkNonce = (): string => randomBytes(16).toString('base64url');

const MEMO_SIZE = 10_000;
const memo = new Map<string, string>();

/** The derived values are fixed for a recipient's nonce, and lists ask for them over and over. */
function memoised(key: string, compute: () => string): string {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute();
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
  }
  return value;
}

export function linkToken(secret: string, recipientId: string, nonce: string): string {
  return memoised(`link:${recipientId}:${nonce}:${secret}`, () =>
    derive(secret, 'link', recipientId, nonce).toString('base64url'),
  );
}

export function recipientPassword(secret: string, recipientId: string, nonce: string): string {
  return memoised(`password:${recipientId}:${nonce}:${secret}`, () => {
    const bytes = derive(secret, 'password', recipientId, nonce);
    // 14 characters from a 57-letter alphabet without look-alikes: about 81 bits.
    return Array.from(
      bytes.subarray(0, PASSWORD_LENGTH),
      (byte) => PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length],
    ).join('');
  });
}

/** Security answers are compared without case or surrounding space. */
export function answerHash(secret: string, recipientId: string, answer: string): string {
  return createHmac('sha256', secret).update(`answer:${recipientId}:${answer.trim().toLowerCase()}`).digest('hex');
}

export function requestLink(publicUrl: string, token: string): string {
  return `${publicUrl}/r/${token}`;
}

/**
 * Where a recipient enters its one-time code: for methods that send one, and for every recipient of a
 * request with MFA, which adds the code step to any method (API-DECISIONS "The recipient side").
 */
export function mfaLink(publicUrl: string, token: string, auth: AuthMethod, mfaEnabled: boolean): string | null {
  return auth === 'EMAIL' || auth === 'SMS' || mfaEnabled ? `${publicUrl}/r/${token}/verify` : null;
}

/** UNSET resolves against the request: with MFA on, a code by email (by SMS when there is no email). */
export function effectiveAuth(authMethod: AuthMethod, mfaEnabled: boolean, email: string | null): AuthMethod {
  if (authMethod !== 'UNSET') return authMethod;
  if (!mfaEnabled) return 'NONE';
  return email ? 'EMAIL' : 'SMS';
}
