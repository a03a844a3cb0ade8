import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { median, round2, type ScenarioResult } from './report';
import { startHelper, type Helper, type ServerProcess } from './servers';

// File throughput (issue 3): upload and download of one file through Gather over HTTP on loopback
// (multipart item attachment, local storage under the bench DATA_DIR; the service measures and hashes
// every upload while streaming it to disk), as a ratio to writing the same bytes to a file in the same
// directory with SHA-256, and reading them back, in the same run and in alternation. Both sides go
// through the page cache (neither calls fsync), so "disk" is what the kernel accepts, as for the service.
// The bytes are moved by a fresh load process (lib/file-client.ts): the raw side and the HTTP client.

const MB = 1024 * 1024;

type Round = {
  write: number;
  read: number;
  writeCpuMsPerMb: number;
  readCpuMsPerMb: number;
  upload: number;
  download: number;
  rssUpload: number;
  rssDownload: number;
  cpuUploadMsPerMb: number;
  cpuDownloadMsPerMb: number;
  /** Busy share of one core over each transfer: Gather, and the client process. */
  serverBusyUpload: number;
  clientBusyUpload: number;
  serverBusyDownload: number;
  clientBusyDownload: number;
};

async function ask<T>(helper: Helper, message: object, answer: string): Promise<T> {
  helper.send(message);
  // One waiter for either: a waiter left behind would keep its listeners (11 of them warn) and its timer.
  const reply = await helper.next<T & { type: string; error?: string }>([answer, 'failed'], 10 * 60_000);
  if (reply.type === 'failed') throw new Error(`files: ${reply.error}`);
  return reply;
}

export async function runFiles(ctx: {
  gather: ServerProcess;
  apiKey: string;
  sizeMb: number;
  rounds: number;
  dataDir: string;
  log: (line: string) => void;
  /** Profiles Gather during the service side of the first round (upload and download). */
  profilePath?: string;
}): Promise<ScenarioResult[]> {
  const { gather, sizeMb } = ctx;
  const auth = { authorization: `Bearer ${ctx.apiKey}` };
  const createResponse = await fetch(`${gather.url}/requests`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench files',
      items: [{ name: 'File', type: 'UPLOAD' }],
      recipients: [{ email: 'bench-files@bench.example' }],
    }),
  });
  if (createResponse.status !== 200)
    throw new Error(`files: POST /requests answered ${createResponse.status}: ${await createResponse.text()}`);
  const { id: requestId, items } = (await createResponse.json()) as { id: string; items: { id: string }[] };
  const path = `/requests/${requestId}/items/${items[0].id}/attachments`;
  const expectedHash = (() => {
    const hash = createHash('sha256');
    const block = Buffer.alloc(MB, 0x5a);
    for (let i = 0; i < sizeMb; i++) hash.update(block);
    return hash.digest('hex');
  })();
  mkdirSync(ctx.dataDir, { recursive: true });
  const raw = join(ctx.dataDir, `raw-bench-${process.pid}.bin`);
  const client = startHelper('lib/file-client.ts');

  const rawSide = async () => {
    const r = await ask<{
      writeMbS: number;
      readMbS: number;
      writeCpuMsPerMb: number;
      readCpuMsPerMb: number;
      sha256: string;
    }>(client, { type: 'raw', file: raw, mb: sizeMb }, 'raw');
    if (r.sha256 !== expectedHash) throw new Error('files: the raw write hashed differently');
    return { write: r.writeMbS, read: r.readMbS, writeCpuMsPerMb: r.writeCpuMsPerMb, readCpuMsPerMb: r.readCpuMsPerMb };
  };

  const serviceSide = async (mb = sizeMb) => {
    let rss = gather.rssMb();
    const sampler = setInterval(() => {
      rss = Math.max(rss, gather.rssMb());
    }, 100);
    try {
      let cpu = gather.cpuSeconds();
      const up = await ask<{ mbS: number; seconds: number; cpuS: number; status: number; body: string }>(
        client,
        { type: 'upload', url: gather.url, path, headers: auth, mb },
        'uploaded',
      );
      const cpuUpload = gather.cpuSeconds() - cpu;
      if (up.status !== 200 && up.status !== 201)
        throw new Error(`files: upload answered ${up.status}: ${up.body.slice(0, 300)}`);
      const attachment = JSON.parse(up.body) as { id: string; size: number };
      if (attachment.size !== mb * MB)
        throw new Error(`files: the service stored ${attachment.size} bytes, expected ${mb * MB}`);
      const rssUpload = rss;
      rss = gather.rssMb();
      cpu = gather.cpuSeconds();
      const down = await ask<{ mbS: number; seconds: number; cpuS: number; status: number; bytes: number }>(
        client,
        { type: 'download', url: gather.url, path: `${path}/${attachment.id}/download`, headers: auth, bytes: mb * MB },
        'downloaded',
      );
      const cpuDownload = gather.cpuSeconds() - cpu;
      if (down.status !== 200 || down.bytes !== mb * MB)
        throw new Error(`files: download answered ${down.status} with ${down.bytes} bytes`);
      const removed = await fetch(`${gather.url}${path}/${attachment.id}`, { method: 'DELETE', headers: auth });
      if (removed.status !== 204) throw new Error(`files: DELETE answered ${removed.status}`);
      return {
        upload: up.mbS,
        download: down.mbS,
        rssUpload,
        rssDownload: rss,
        cpuUploadMsPerMb: (cpuUpload * 1000) / mb,
        cpuDownloadMsPerMb: (cpuDownload * 1000) / mb,
        serverBusyUpload: cpuUpload / up.seconds,
        clientBusyUpload: up.cpuS / up.seconds,
        serverBusyDownload: cpuDownload / down.seconds,
        clientBusyDownload: down.cpuS / down.seconds,
      };
    } finally {
      clearInterval(sampler);
    }
  };

  const rounds: Round[] = [];
  try {
    await client.next('hello', 60_000);
    // Warm-up (discarded): the first upload loads the type sniffer's modules and warms the paths.
    await serviceSide(Math.min(8, sizeMb));
    for (let r = 0; r < ctx.rounds; r++) {
      // Alternation: raw first in odd rounds, the service first in even ones.
      let disk: Awaited<ReturnType<typeof rawSide>>;
      let service: Awaited<ReturnType<typeof serviceSide>>;
      if (r === 0 && ctx.profilePath) {
        disk = await rawSide();
        await gather.profileStart();
        service = await serviceSide();
        await gather.profileStop(ctx.profilePath);
      } else if (r % 2 === 0) {
        disk = await rawSide();
        service = await serviceSide();
      } else {
        service = await serviceSide();
        disk = await rawSide();
      }
      const round: Round = { ...disk, ...service };
      rounds.push(round);
      ctx.log(
        `round ${r + 1}/${ctx.rounds} · ${sizeMb} MB: upload ${round.upload.toFixed(0)} MB/s (raw write ${round.write.toFixed(0)} MB/s), ` +
          `download ${round.download.toFixed(0)} MB/s (raw read ${round.read.toFixed(0)} MB/s), Gather RSS ${round.rssUpload.toFixed(0)}/${round.rssDownload.toFixed(0)} MB; ` +
          `busy (share of a core) upload: Gather ${round.serverBusyUpload.toFixed(2)}, client ${round.clientBusyUpload.toFixed(2)}; download: Gather ${round.serverBusyDownload.toFixed(2)}, client ${round.clientBusyDownload.toFixed(2)}`,
      );
    }
  } finally {
    await client.stop();
    rmSync(raw, { force: true });
  }
  const m = (f: (r: Round) => number) => median(rounds.map(f));
  const upload = m((r) => r.upload);
  const write = m((r) => r.write);
  const download = m((r) => r.download);
  const read = m((r) => r.read);
  const perRound = (o: (r: Round) => number, b: (r: Round) => number) =>
    rounds.map((r) => ({ ours_rps: Math.round(o(r)), baseline_rps: Math.round(b(r)) }));
  const note =
    'medians over the rounds; the raw side and the HTTP client run in one fresh load process; both sides go through the page cache (no fsync)';
  return [
    {
      name: `File upload: ${sizeMb} MB multipart item attachment over HTTP, local storage`,
      unit: 'MB/s',
      ours: {
        rps: round2(upload),
        p50_ms: null,
        p99_ms: null,
        rss_mb: round2(
          m((r) => r.rssUpload),
          0,
        ),
        cpu_ms_per_mb: round2(
          m((r) => r.cpuUploadMsPerMb),
          2,
        ),
        server_busy: round2(
          m((r) => r.serverBusyUpload),
          2,
        ),
        client_busy: round2(
          m((r) => r.clientBusyUpload),
          2,
        ),
      },
      baseline: {
        name: 'raw disk write of the same bytes with SHA-256 (same directory)',
        rps: round2(write),
        p50_ms: null,
        p99_ms: null,
        rss_mb: null,
        cpu_ms_per_mb: round2(
          m((r) => r.writeCpuMsPerMb),
          2,
        ),
      },
      ratio: Math.round((upload / write) * 1000) / 1000,
      ratio_of: 'throughput',
      cpu_ratio: Math.round((m((r) => r.writeCpuMsPerMb) / m((r) => r.cpuUploadMsPerMb)) * 1000) / 1000,
      target: null,
      met: null,
      rounds: perRound(
        (r) => r.upload,
        (r) => r.write,
      ),
      note,
    },
    {
      name: `File download: the same ${sizeMb} MB over HTTP`,
      unit: 'MB/s',
      ours: {
        rps: round2(download),
        p50_ms: null,
        p99_ms: null,
        rss_mb: round2(
          m((r) => r.rssDownload),
          0,
        ),
        cpu_ms_per_mb: round2(
          m((r) => r.cpuDownloadMsPerMb),
          2,
        ),
        server_busy: round2(
          m((r) => r.serverBusyDownload),
          2,
        ),
        client_busy: round2(
          m((r) => r.clientBusyDownload),
          2,
        ),
      },
      baseline: {
        name: 'raw disk read of the same file',
        rps: round2(read),
        p50_ms: null,
        p99_ms: null,
        rss_mb: null,
        cpu_ms_per_mb: round2(
          m((r) => r.readCpuMsPerMb),
          2,
        ),
      },
      ratio: Math.round((download / read) * 1000) / 1000,
      ratio_of: 'throughput',
      cpu_ratio: Math.round((m((r) => r.readCpuMsPerMb) / m((r) => r.cpuDownloadMsPerMb)) * 1000) / 1000,
      target: null,
      met: null,
      rounds: perRound(
        (r) => r.download,
        (r) => r.read,
      ),
      note,
    },
  ];
}
