import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openBenchDatabase, type BenchDatabase } from './lib/database';
import { LIST_QUERY } from './lib/documents';
import { seededData } from './lib/seed';
import { killAllServers, mainAndOthers, startServer, type ServerName, type ServerProcess } from './lib/servers';

// What a server's RSS is made of under the list load (issue 14, target 6): the runner's load of the
// `list` group against one server at a time, sampling the server's heap by space, its external memory
// and /proc's view (anonymous RSS, the malloc heap) during the load, then the same after a full
// collection. `npx tsx bench/mem-probe.ts --server ours --server bare [--node-arg=--flag] [--env K=V]`.

const { values: args } = parseArgs({
  options: {
    server: { type: 'string', multiple: true, default: ['ours', 'bare'] },
    'node-arg': { type: 'string', multiple: true, default: [] },
    env: { type: 'string', multiple: true, default: [] },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '1' },
    snapshot: { type: 'string' },
    detail: { type: 'boolean', default: false },
  },
});

type Detail = {
  usage: NodeJS.MemoryUsage;
  heap: Record<string, number>;
  spaces: { space_name: string; space_size: number; space_used_size: number; physical_space_size: number }[];
  gc: { minor: number; major: number; incremental: number; weakcb: number; count: number };
};

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;

/** RSS split by kind of mapping: the malloc main arena ([heap]), other anonymous memory, files. */
function proc(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  let brk = 0;
  let current = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) current = line;
    else if (line.startsWith('Rss:') && current.endsWith('[heap]')) brk += Number(line.split(/\s+/)[1]) / 1024;
  }
  return {
    rss: field('VmRSS'),
    anon: field('RssAnon'),
    file: field('RssFile'),
    brk: Math.round(brk),
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1]),
  };
}

function summary(d: Detail) {
  const space = (name: string) => d.spaces.find((s) => s.space_name === name);
  const s = (name: string) => {
    const x = space(name);
    return x ? `${mb(x.space_used_size)}/${mb(x.physical_space_size)}` : '-';
  };
  return (
    `heapUsed ${mb(d.usage.heapUsed)} heapTotal ${mb(d.usage.heapTotal)} external ${mb(d.usage.external)} (arrayBuffers ${mb(d.usage.arrayBuffers)}) · ` +
    `new ${s('new_space')} old ${s('old_space')} code ${s('code_space')} lo ${s('large_object_space')} newlo ${s('new_large_object_space')} map ${s('map_space')} · malloced ${mb(d.heap.malloced_memory)} (peak ${mb(d.heap.peak_malloced_memory)})`
  );
}

async function main() {
  let db: BenchDatabase | undefined;
  try {
    db = await openBenchDatabase((line) => console.log(line), { reuseSeed: true });
    const data = await seededData(db);
    const apiKey = data.tenants[0].apiKey;
    const env = Object.fromEntries(args.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    // Each contender: a server and its node flags ("ours", "bare", "ours:--flag,--other").
    const contenders = (args.server as string[]).map((spec) => {
      const [name, flags] = spec.split(':');
      return {
        label: spec,
        name: name as ServerName,
        nodeArgs: [...args['node-arg'], ...(flags ? flags.split(',') : [])],
      };
    });
    const servers = new Map<string, ServerProcess>();
    for (const c of contenders) {
      const server = await startServer(c.name, {
        dbUrl: db.url,
        poolMax: 10,
        cpuProf: false,
        nodeArgs: c.nodeArgs,
        env,
      });
      servers.set(c.label, server);
      const idle = proc(server.pid);
      console.log(
        `== ${c.label} · idle: RSS ${idle.rss.toFixed(0)} (anon ${idle.anon.toFixed(0)}, file ${idle.file.toFixed(0)}, brk ${idle.brk}), threads ${idle.threads}`,
      );
      console.log(`   idle: ${summary(await server.command<Detail>('memory-detail'))}`);
    }
    const figures = new Map<string, { rps: number; cpu: number; rss: number; gc: number }[]>();
    for (let round = 1; round <= Number(args.rounds); round++) {
      const order = contenders.map((_, i) => contenders[(i + round - 1) % contenders.length]);
      for (const c of order) {
        const server = servers.get(c.label)!;
        const target =
          c.name === 'bare'
            ? { method: 'GET' as const, path: '/requests?first=20' }
            : {
                method: 'POST' as const,
                path: '/graphql',
                body: JSON.stringify({ query: LIST_QUERY, variables: { first: 20 } }),
              };
        const cannon = (duration: number) =>
          autocannon({
            url: server.url,
            connections: Number(args.connections),
            duration,
            requests: [
              { ...target, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } },
            ],
          });
        await cannon(Number(args.warmup));
        let peak = proc(server.pid);
        let peakDetail: Detail | undefined;
        let peakHeap = 0;
        let running = true;
        const sampling = (async () => {
          while (running) {
            const p = proc(server.pid);
            const d = args.detail ? await server.command<Detail>('memory-detail') : undefined;
            if (p.rss > peak.rss) peak = p;
            if (d && d.usage.heapTotal > peakHeap) {
              peakHeap = d.usage.heapTotal;
              peakDetail = d;
            }
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
        const gc0 = (await server.command<Detail>('memory-detail')).gc;
        const cpu0 = server.cpuSeconds();
        const threads0 = mainAndOthers(server.pid);
        const result = await cannon(Number(args.duration));
        const cpu = server.cpuSeconds() - cpu0;
        const threads1 = mainAndOthers(server.pid);
        const gc1 = (await server.command<Detail>('memory-detail')).gc;
        const gcMs = gc1.minor + gc1.major + gc1.incremental - gc0.minor - gc0.major - gc0.incremental;
        running = false;
        await sampling;
        const rps = result.requests.total / result.duration;
        const cpuPerReq = (cpu * 1000) / result.requests.total;
        const gcShare = gcMs / (cpu * 1000);
        figures.set(c.label, [...(figures.get(c.label) ?? []), { rps, cpu: cpuPerReq, rss: peak.rss, gc: gcShare }]);
        console.log(
          `   round ${round} ${c.label}: ${Math.round(rps)} req/s, ${cpuPerReq.toFixed(2)} ms CPU/req ` +
            `(main thread ${(((threads1.main - threads0.main) * 1000) / result.requests.total).toFixed(2)}, others ${(((threads1.others - threads0.others) * 1000) / result.requests.total).toFixed(2)}), GC pauses ${(gcMs / result.requests.total).toFixed(2)} ms/req ` +
            `(${(gcShare * 100).toFixed(1)}% of CPU; scavenges ${(gc1.minor - gc0.minor).toFixed(0)} ms, mark-compacts ${(gc1.major - gc0.major).toFixed(0)} ms, incremental ${(gc1.incremental - gc0.incremental).toFixed(0)} ms), errors ${result.errors + result.non2xx}; ` +
            `peak RSS ${peak.rss.toFixed(0)} (anon ${peak.anon.toFixed(0)}, file ${peak.file.toFixed(0)}, brk ${peak.brk}), threads ${peak.threads}`,
        );
        if (peakDetail) console.log(`   peak heap: ${summary(peakDetail)}`);
        if (args.detail) {
          const after = await server.command<Detail>('memory-detail', { gc: true });
          const p = proc(server.pid);
          console.log(
            `   after gc: ${summary(after)} · RSS ${p.rss.toFixed(0)} (anon ${p.anon.toFixed(0)}, brk ${p.brk})`,
          );
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    console.log('\ncontender: median req/s, CPU ms/req, peak RSS MB, GC pauses % of CPU (each round)');
    for (const c of contenders) {
      const f = figures.get(c.label)!;
      console.log(
        `${c.label}: ${median(f.map((x) => x.rps)).toFixed(0)} req/s, ${median(f.map((x) => x.cpu)).toFixed(2)} ms/req, ${median(f.map((x) => x.rss)).toFixed(0)} MB, GC ${(median(f.map((x) => x.gc)) * 100).toFixed(1)}%` +
          `  (${f.map((x) => `${x.rps.toFixed(0)}/${x.cpu.toFixed(2)}/${x.rss.toFixed(0)}/${(x.gc * 100).toFixed(1)}%`).join(' · ')})`,
      );
    }
    if (args.snapshot) {
      for (const [label, server] of servers) {
        const path = `${args.snapshot}-${label.replace(/[^a-z0-9]+/gi, '_')}.heapsnapshot`;
        await server.command('heap-snapshot', { path });
        console.log(`heap snapshot: ${path}`);
      }
    }
    for (const server of servers.values()) await server.stop();
  } finally {
    killAllServers();
    await db?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
