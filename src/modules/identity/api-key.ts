import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'gth_';

/** A new key: a readable prefix and 32 random bytes. Only its hash is stored. */
export function generateApiKey(): string {
  return `${PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys are looked up by the SHA-256 of the whole string: they carry enough entropy that a slow hash
 * adds nothing, and any string (an operator's GATHER_ADMIN_API_KEY) works as a key.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters, kept so a person can tell keys apart without the secret. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 12);
}
