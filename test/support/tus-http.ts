import { request as httpRequest } from 'node:http';

// tus over real HTTP with nothing of the service loaded: the resumable-upload tests (tus.ts) and
// bench/tus-attack.ts send their requests through it.

/** tus `Upload-Metadata` of `values`. */
export const meta = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/**
 * One tus request to the service at `base` (`http://host:port`), on a connection of its own; with
 * `dropAfter`, that many bytes of the body are sent, then the socket is destroyed.
 */
export function tusRequest(
  base: string,
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
