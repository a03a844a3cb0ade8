import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Secrets the service must read back (webhook signing secrets) are stored sealed with AES-256-GCM
// under a key derived from the server secret: a copy of the database alone does not reveal them.

const keys = new Map<string, Buffer>();

/** The key of one purpose, derived once per process (HKDF is most of an unseal's cost). */
function keyFor(serverSecret: string, purpose: string): Buffer {
  const id = `${purpose}\0${serverSecret}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', serverSecret, 'gather', purpose, 32));
    keys.set(id, key);
  }
  return key;
}

export function seal(serverSecret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(serverSecret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function unseal(serverSecret: string, purpose: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(serverSecret, purpose), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
