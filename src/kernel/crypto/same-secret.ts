import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret a client sent is the expected one, compared as text in time that does not tell how much of it
 * matched. Compare encoded forms, never decoded bytes: base64's last character has spare bits, so two strings can
 * decode to the same bytes and a changed token would still pass.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
