import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/kernel/db/db';
import { createRequest } from './fixtures';

// A tus client over real HTTP for the resumable-upload tests (/r/{token}/api/uploads), and the
// recipient sessions and rows they work with.

/** tus `Upload-Metadata` of `values`. */
export const meta = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

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
  /** One HTTP request on its own connection; `dropAfter` bytes of the body are sent, then the socket is destroyed. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
    dropAfter?: number,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { method, headers: { 'tus-resumable': '1.0.0', connection: 'close', ...headers }, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
            );
        },
      );
      if (dropAfter === undefined) {
        req.on('error', reject);
        req.end(body);
        return;
      }
      // The client's network goes: part of the body is on the wire, then the connection breaks.
      req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
      req.write(body!.subarray(0, dropAfter), () => setTimeout(() => req.destroy(), 100));
    });
  }

  /** Begins an upload of `length` bytes to the link's upload item. */
  const create = (link: SignedIn, length: number, filename = 'a.txt') =>
    send('POST', `/r/${link.token}/api/uploads`, {
      ...link.auth,
      'upload-length': String(length),
      'upload-metadata': meta({ item_id: link.upload, filename }),
    });

  return { send, create };
}
