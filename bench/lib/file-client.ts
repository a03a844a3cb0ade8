import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// The byte-moving side of the file scenario (lib/file-throughput.ts), in a fresh process of its own:
// the raw disk baseline (write with SHA-256, read back) and the HTTP client of the upload and download.
// Not in the runner: a long-lived runner that has just driven the fan-out's sockets and processes was
// measured reading the same file at a third of the speed of a fresh process.
//   raw {file, mb}                           -> raw {writeMbS, readMbS, writeCpuMsPerMb, readCpuMsPerMb, sha256}
//   upload {url, path, headers, mb}          -> uploaded {mbS, seconds, cpuS, status, body}
//   download {url, path, headers, bytes}     -> downloaded {mbS, seconds, cpuS, status, bytes}

const MB = 1024 * 1024;
const block = Buffer.alloc(MB, 0x5a);
const blocks = (count: number) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) yield block;
    })(),
  );
const hr = () => process.hrtime.bigint();
const seconds = (from: bigint) => Number(hr() - from) / 1e9;
const cpuS = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

function send(
  url: string,
  options: { method: string; path: string; headers: Record<string, string> },
  body?: Readable,
): Promise<IncomingMessage> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, ...options }, resolve).on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

process.on('message', async (message: Record<string, any>) => {
  try {
    if (message.type === 'raw') {
      const { file, mb } = message as { file: string; mb: number };
      let cpu = process.cpuUsage();
      let start = hr();
      const hash = createHash('sha256');
      await pipeline(
        blocks(mb),
        async function* (source) {
          for await (const chunk of source) {
            hash.update(chunk as Buffer);
            yield chunk;
          }
        },
        createWriteStream(file),
      );
      const writeS = seconds(start);
      const writeCpu = cpuS(process.cpuUsage(cpu));
      cpu = process.cpuUsage();
      start = hr();
      let bytes = 0;
      for await (const chunk of createReadStream(file)) bytes += (chunk as Buffer).length;
      const readS = seconds(start);
      const readCpu = cpuS(process.cpuUsage(cpu));
      rmSync(file, { force: true });
      if (bytes !== mb * MB) throw new Error(`raw read ${bytes} bytes`);
      process.send?.({
        type: 'raw',
        writeMbS: mb / writeS,
        readMbS: mb / readS,
        writeCpuMsPerMb: (writeCpu * 1000) / mb,
        readCpuMsPerMb: (readCpu * 1000) / mb,
        sha256: hash.digest('hex'),
      });
    }
    if (message.type === 'upload') {
      const { url, path, headers, mb } = message as {
        url: string;
        path: string;
        headers: Record<string, string>;
        mb: number;
      };
      const boundary = 'gather-bench';
      const body = Readable.from(
        (async function* () {
          yield Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n\r\n`,
          );
          yield* blocks(mb);
          yield Buffer.from(`\r\n--${boundary}--\r\n`);
        })(),
      );
      const cpu = process.cpuUsage();
      const start = hr();
      const response = await send(
        url,
        { method: 'POST', path, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` } },
        body,
      );
      let text = '';
      for await (const chunk of response) text += chunk;
      const s = seconds(start);
      process.send?.({
        type: 'uploaded',
        mbS: mb / s,
        seconds: s,
        cpuS: cpuS(process.cpuUsage(cpu)),
        status: response.statusCode,
        body: text,
      });
    }
    if (message.type === 'download') {
      const {
        url,
        path,
        headers,
        bytes: expected,
      } = message as { url: string; path: string; headers: Record<string, string>; bytes: number };
      const cpu = process.cpuUsage();
      const start = hr();
      const response = await send(url, { method: 'GET', path, headers });
      let bytes = 0;
      for await (const chunk of response) bytes += (chunk as Buffer).length;
      const s = seconds(start);
      process.send?.({
        type: 'downloaded',
        mbS: expected / MB / s,
        seconds: s,
        cpuS: cpuS(process.cpuUsage(cpu)),
        status: response.statusCode,
        bytes,
      });
    }
  } catch (err) {
    process.send?.({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'hello' });
