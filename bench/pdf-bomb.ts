import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Db } from '../src/kernel/db/db';
import { createOrm } from '../src/kernel/db/orm';
import { DATA_MODEL } from '../src/modules';
import { createOrganization } from '../src/modules/identity/identity.service';
import { MAX_CONTRACT_OBJECT_STREAM_BYTES } from '../src/modules/contracts/contract.limits';
import { pdfBytes } from '../test/support/files';
import { objectStreamBomb } from '../test/support/pdf-bombs';
import { numberArg, runTool } from './lib/cost';
import { openBenchDatabase } from './lib/database';
import { BENCH_DATA_DIR } from './lib/in-process';
import { startServer, type ServerProcess } from './lib/servers';

// What a compressed-PDF bomb costs the server and another client: a PDF of about a megabyte whose object
// stream inflates to --inflate-mb (1,200 by default), uploaded (POST /contracts), then previewed and signed
// (the recipient's POST .../sign) once stored (its bytes put in place of a stored contract's, as a file stored
// before any check would be); and, for comparison, the preview of the largest object stream the limits take.
// Each step on a fresh Gather server, as the bench starts it, on an empty bench database, while another
// client asks /healthz every 10 ms: the step's status and time, the longest and the median wait of that
// client, and the server's RSS before and at its peak. `--against DIR` runs the same steps on Gather from
// another checkout (a worktree of main) first: before and after.
// Usage: BENCH_PG_PORT=... npx tsx bench/pdf-bomb.ts [--against DIR] [--inflate-mb N]

const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

type Measure = { status: number; ms: number; waits: number[]; rssBefore: number; rssPeak: number };

/** Runs `step` while another client asks /healthz every 10 ms and the server's RSS is sampled. */
async function measure(server: ServerProcess, step: () => Promise<number>): Promise<Measure> {
  const rssBefore = server.rssMb();
  let rssPeak = rssBefore;
  let done = false;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, server.rssMb())), 20);
  const waits: number[] = [];
  const probe = (async () => {
    while (!done) {
      const asked = performance.now();
      await (await fetch(`${server.url}/healthz`)).text();
      waits.push(performance.now() - asked);
      await sleep(10);
    }
  })();
  const started = performance.now();
  const status = await step();
  const ms = performance.now() - started;
  done = true;
  await probe;
  clearInterval(sampler);
  return { status, ms, waits, rssBefore, rssPeak: Math.max(rssPeak, server.rssMb()) };
}

async function main(): Promise<void> {
  const inflated = numberArg('--inflate-mb', 1200) * MiB;
  const bomb = await objectStreamBomb(inflated);
  console.log(`bomb: ${(bomb.length / MiB).toFixed(2)} MiB, its object stream inflating to ${inflated / MiB} MiB`);
  // What the limits still take, for the cost of reading a PDF in a worker.
  const large = await objectStreamBomb(MAX_CONTRACT_OBJECT_STREAM_BYTES - MiB);
  const db = await openBenchDatabase(console.log, { reuseSeed: false });
  try {
    const orm = await createOrm({ url: db.url, ...DATA_MODEL, poolMax: 1 });
    const local = new Db({ url: db.url, poolMax: 1, metadata: orm.getMetadata() });
    const { apiKey } = await createOrganization(local, { name: 'Bomb bench', adminEmail: 'bench@example.com' });
    await local.close();
    await orm.close();
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const owner = { authorization: `Bearer ${apiKey}` };

    const upload = async (server: ServerProcess, bytes: Buffer) => {
      const response = await fetch(`${server.url}/contracts?name=contract.pdf`, {
        method: 'POST',
        headers: { ...owner, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      return { status: response.status, body: (await response.json()) as { id: string } };
    };
    /** A contract whose stored bytes are `bytes` (the bomb's), as a file stored before any check. */
    const storedBomb = async (server: ServerProcess, bytes = bomb) => {
      const { body } = await upload(server, await pdfBytes());
      const { rows } = await pg.query(
        'select f.storage_key from contract c join stored_file f on f.id = c.file_id where c.id = $1',
        [body.id],
      );
      const key = rows[0].storage_key as string;
      writeFileSync(join(BENCH_DATA_DIR, 'files', key.slice(0, 2), key), bytes);
      return body.id;
    };
    const steps: Record<string, (server: ServerProcess) => Promise<() => Promise<number>>> = {
      'POST /contracts (upload)': async (server) => async () => (await upload(server, bomb)).status,
      'GET /contracts/{id}/preview': async (server) => {
        const id = await storedBomb(server);
        return async () => {
          const response = await fetch(`${server.url}/contracts/${id}/preview`, { headers: owner });
          await response.arrayBuffer();
          return response.status;
        };
      },
      'GET /contracts/{id}/preview of a large PDF within the limits (object stream of 31 MiB)': async (server) => {
        const id = await storedBomb(server, large);
        return async () => {
          const response = await fetch(`${server.url}/contracts/${id}/preview`, { headers: owner });
          await response.arrayBuffer();
          return response.status;
        };
      },
      "POST /r/{token}/api/items/{id}/sign (the recipient's signature)": async (server) => {
        const id = await storedBomb(server);
        const created = await fetch(`${server.url}/requests`, {
          method: 'POST',
          headers: { ...owner, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'Sign this',
            recipients: [{ first_name: 'Ana', email: 'ana@example.com', auth_method: { type: 'NONE' } }],
            items: [{ type: 'E_SIGNATURE', name: 'Contract', contract_id: id }],
          }),
        });
        const request = (await created.json()) as { recipients: { request_link: string }[]; items: { id: string }[] };
        const link = request.recipients[0].request_link;
        const base = `${server.url}/r/${link.slice(link.lastIndexOf('/r/') + 3)}/api`;
        const session = await fetch(`${base}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        const { session_token } = (await session.json()) as { session_token: string };
        return async () => {
          const response = await fetch(`${base}/items/${request.items[0].id}/sign`, {
            method: 'POST',
            headers: { authorization: `Bearer ${session_token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ signature: { type: 'TYPED', text: 'Ana' } }),
          });
          await response.arrayBuffer();
          return response.status;
        };
      },
    };

    const against = arg('--against');
    const contenders = [
      ...(against ? [{ label: `before (${against})`, root: against }] : []),
      { label: 'after (this checkout)', root: undefined },
    ];
    const rows: string[] = [];
    for (const { label, root } of contenders) {
      for (const [name, prepare] of Object.entries(steps)) {
        const server = await startServer('ours', { dbUrl: db.url, poolMax: 10, cpuProf: false, root, label });
        try {
          // Warmed with a small PDF (its preview too, which starts the PDF workers where there are some).
          const warm = await upload(server, await pdfBytes());
          await (await fetch(`${server.url}/contracts/${warm.body.id}/preview`, { headers: owner })).arrayBuffer();
          const step = await prepare(server);
          const m = await measure(server, step);
          const sorted = [...m.waits].sort((a, b) => a - b);
          const row = [
            label,
            name,
            String(m.status),
            `${(m.ms / 1000).toFixed(2)} s`,
            `${Math.round(sorted.at(-1) ?? 0)} ms`,
            `${sorted[Math.floor(sorted.length / 2)]?.toFixed(1) ?? '—'} ms`,
            String(m.waits.length),
            `${Math.round(m.rssBefore)} → ${Math.round(m.rssPeak)} MB`,
          ];
          console.log(row.join(' | '));
          rows.push(`| ${row.join(' | ')} |`);
        } finally {
          await server.stop();
        }
      }
    }
    await pg.end();
    console.log(
      [
        '',
        '| Gather | step | status | time | longest /healthz wait | median wait | /healthz answers | server RSS before → peak |',
        '|---|---|---:|---:|---:|---:|---:|---:|',
        ...rows,
      ].join('\n'),
    );
  } finally {
    await db.stop();
  }
}

runTool(main);
