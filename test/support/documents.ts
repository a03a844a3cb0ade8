import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TestApp, Tenant } from './app';
import { submitDocument } from '../../src/modules/documents/document.service';
import { findViewerByApiKey } from '../../src/modules/identity/viewer';

/**
 * Submits a document to an item through the service, as the recipient flow (a later issue) will;
 * until then no HTTP path does.
 */
export async function submit(
  t: TestApp,
  tenant: Tenant,
  requestId: string,
  itemId: string,
  content: Buffer | string,
  name: string,
) {
  const viewer = (await findViewerByApiKey(t.db, tenant.apiKey))!;
  const ctx = t.app.contexts.forViewer(viewer, { log: t.app.log, requestId: 'test' });
  return submitDocument(ctx, requestId, itemId, {
    stream: Readable.from([Buffer.from(content)]),
    name,
    claimedType: null,
  });
}

/** Every object under the test app's local storage, half-written ones included. */
export function storedObjects(t: TestApp): string[] {
  const root = (t.config.storage as { dir: string }).dir;
  try {
    return readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((path) => /[0-9a-f-]{36}(\.part)?$/.test(path))
      .map((p) => join(root, p));
  } catch {
    return [];
  }
}

/** Replaces the stored bytes of a contract, as a file stored before a check existed would be. */
export async function replaceContractBytes(t: TestApp, contractId: string, bytes: Buffer): Promise<void> {
  const [{ storage_key }] = await t.orm.em
    .fork()
    .getConnection()
    .execute('select f.storage_key from contract c join stored_file f on f.id = c.file_id where c.id = ?', [
      contractId,
    ]);
  const [path] = storedObjects(t).filter((p) => p.endsWith(storage_key));
  writeFileSync(path, bytes);
}
