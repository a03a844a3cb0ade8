import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/kernel/db/db';
import { createRequest } from './fixtures';
import { meta, tusRequest } from './tus-http';

export { meta, type Answer } from './tus-http';

// A tus client over real HTTP for the resumable-upload tests (/r/{token}/api/uploads), and the
// recipient sessions and rows they work with.

/** A recipient's link, its session and the request's upload and question items. */
export type SignedIn = Awaited<ReturnType<typeof signedIn>>;

/** A request with one upload item and one question, and a signed-in session of its recipient. */
export async function signedIn(app: FastifyInstance, apiKey: string) {
  const created = await createRequest(app, apiKey);
  const token = new URL(created.recipients[0].request_link).pathname.split('/')[2];
  const session = await app.inject({ method: 'POST', url: `/r/${token}/api/session`, payload: {} });
  expect(session.statusCode).toBe(200);
  const auth = { authorization: `Bearer ${session.json().session_token}` };
  return { created, token, auth, upload: created.items[0].id as string, question: created.items[1].id as string };
}

/** The unfinished uploads the database counts against a link. */
export async function unfinishedUploads(db: Db, token: string): Promise<number> {
  const tag = createHash('sha256').update(token).digest('hex').slice(0, 16);
  const [{ n }] = await db.rows<{ n: number }>('select count(*)::int as n from partial_upload where link_tag = ?', [
    tag,
  ]);
  return n;
}

/** tus requests to the service at `base` (`http://host:port`). */
export function tusClient(base: string) {
  /** One request (see tusRequest). */
  const send = (method: string, path: string, headers: Record<string, string>, body?: Buffer, dropAfter?: number) =>
    tusRequest(base, method, path, headers, body, dropAfter);

  /** Begins an upload of `length` bytes to the link's upload item. */
  const create = (link: SignedIn, length: number, filename = 'a.txt') =>
    send('POST', `/r/${link.token}/api/uploads`, {
      ...link.auth,
      'upload-length': String(length),
      'upload-metadata': meta({ item_id: link.upload, filename }),
    });

  return { send, create };
}
