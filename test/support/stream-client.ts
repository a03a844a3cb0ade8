import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

// The client side of the 200 MB streaming test, in a process of its own, so the RSS the test measures
// is the service's alone: in one process, the client's own socket reads are as many dead buffers as
// the server's, and when they are collected depends on how busy the machine is.
//   argv: port, attachments path, API key, MB → stdout: one JSON line of what happened.

const [port, path, apiKey, megabytes] = process.argv.slice(2);
const MB = 1024 * 1024;
const auth = { authorization: `Bearer ${apiKey}` };

function send(
  options: { method: string; path: string; headers: Record<string, string> },
  body?: Readable,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), ...options }, resolve).on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

async function main() {
  const block = Buffer.alloc(MB);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  const boundary = 'gather-streaming-test';
  const sent = createHash('sha256');
  async function* body() {
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    for (let i = 0; i < Number(megabytes); i++) {
      sent.update(block);
      yield block;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  const uploaded = await send(
    { method: 'POST', path, headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` } },
    Readable.from(body()),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of uploaded) chunks.push(chunk as Buffer);
  const attachment = JSON.parse(Buffer.concat(chunks).toString());
  const downloaded = await send({ method: 'GET', path: `${path}/${attachment.id}/download`, headers: auth });
  const received = createHash('sha256');
  for await (const chunk of downloaded) received.update(chunk as Buffer);
  const result = {
    uploadStatus: uploaded.statusCode,
    attachment,
    downloadStatus: downloaded.statusCode,
    contentLength: downloaded.headers['content-length'],
    sent: sent.digest('hex'),
    received: received.digest('hex'),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
