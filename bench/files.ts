// Upload and download throughput of the service through a real HTTP connection, as a ratio to the raw
// disk write and read speed of the same data measured in the same run. Not a test: `npx tsx bench/files.ts`
// (needs a PostgreSQL: DATABASE_URL, else the embedded one under a temporary directory).
import { createHash } from 'node:crypto';
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config/config';
import { openDatabase } from '../src/kernel/db/database';
import { createOrganization } from '../src/modules/identity/identity.service';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_FILE_MB ?? 256);
const block = Buffer.alloc(MB, 0x5a);
const blocks = () => Readable.from((function* () { for (let i = 0; i < SIZE_MB; i++) yield block; })());
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

function send(port: number, options: { method: string; path: string; headers: Record<string, string> }, body?: Readable): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, ...options }, resolve).on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gather-bench-'));
  // The embedded PostgreSQL runs as its own system user, which must be able to enter the directory.
  chmodSync(dataDir, 0o755);
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, EMBEDDED_PG_PORT: process.env.EMBEDDED_PG_PORT ?? '54390', LOG_LEVEL: 'silent', MAX_UPLOAD_BYTES: String(2 * 1024 * MB - 1) });
  const database = await openDatabase(config, () => undefined);
  const app = await buildApp({ config, orm: database.orm });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const { apiKey } = await createOrganization(database.orm.em.fork(), { name: 'Bench', adminEmail: `bench-${Date.now()}@example.com` });
    const auth = { authorization: `Bearer ${apiKey}` };
    const created = await app.inject({ method: 'POST', url: '/requests', headers: auth, payload: { name: 'Bench', items: [{ name: 'File', type: 'UPLOAD' }], recipients: [{ email: 'bench@example.com' }] } });
    const { id: requestId, items: [{ id: itemId }] } = created.json();

    // Raw disk: the same bytes written to and read back from a file in the same directory, with SHA-256
    // (the service hashes every upload).
    const raw = join(dataDir, 'raw.bin');
    let start = process.hrtime.bigint();
    const hash = createHash('sha256');
    await pipeline(blocks(), async function* (source) { for await (const chunk of source) { hash.update(chunk); yield chunk; } }, createWriteStream(raw));
    const diskWrite = SIZE_MB / seconds(start);
    start = process.hrtime.bigint();
    for await (const _chunk of createReadStream(raw)) void _chunk;
    const diskRead = SIZE_MB / seconds(start);

    const boundary = 'gather-bench';
    const body = Readable.from((async function* () {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n\r\n`);
      yield* blocks();
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    })());
    const path = `/requests/${requestId}/items/${itemId}/attachments`;
    start = process.hrtime.bigint();
    const uploaded = await send(port, { method: 'POST', path, headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` } }, body);
    let text = '';
    for await (const chunk of uploaded) text += chunk;
    const upload = SIZE_MB / seconds(start);
    const attachment = JSON.parse(text);
    start = process.hrtime.bigint();
    const downloaded = await send(port, { method: 'GET', path: `${path}/${attachment.id}/download`, headers: auth });
    for await (const _chunk of downloaded) void _chunk;
    const download = SIZE_MB / seconds(start);

    const line = (label: string, service: number, disk: number) =>
      `${label.padEnd(9)} service ${service.toFixed(0).padStart(5)} MB/s   raw disk ${disk.toFixed(0).padStart(5)} MB/s   ratio ${(service / disk).toFixed(2)}`;
    console.log(`files bench: ${SIZE_MB} MB through HTTP on loopback, local storage in ${dataDir}`);
    console.log(line('upload', upload, diskWrite));
    console.log(line('download', download, diskRead));
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
