import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { bucketOf } from './profile';
import { createBody, LIST_QUERY } from './lib/documents';
import { inProcessApp } from './lib/in-process';
import { openSeededDatabase } from './lib/seed';

// What one list request allocates in Gather (issue 14, targets 2 and 6: the garbage is most of the
// collector's work): the service in this process on the bench database, the list query sent through
// `app.inject` 10 at a time, and V8's sampling heap profiler counting every allocation, those young
// and full collections freed included, by package and by function. Bytes per request do not depend on
// the machine's load, unlike CPU time. `--survivors` counts only what survived young collections.
// `--patch` measures the fan-out's trigger instead (target 4): PATCH /requests/:id, one at a time;
// `--create` the create scenario's POST /requests (the workers and the job queue, the invitations'
// jobs among them, do not run in this process).
// Usage: BENCH_PG_PORT=... npx tsx bench/alloc-probe.ts [--requests N] [--top N] [--survivors] [--patch | --create]

type SampleNode = {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  id: number;
  children: SampleNode[];
};

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    top: { type: 'string', default: '25' },
    survivors: { type: 'boolean', default: false },
    patch: { type: 'boolean', default: false },
    create: { type: 'boolean', default: false },
  },
});
const what = args.patch ? 'PATCH' : args.create ? 'create' : 'list request';

async function main() {
  // Seeded (or the saved seed restored) before the app connects: saving a seed copies the database.
  const { db, data } = await openSeededDatabase(console.log);
  const local = await inProcessApp(db.url).catch(async (err) => {
    await db.stop();
    throw err;
  });
  try {
    const headers = { authorization: `Bearer ${data.tenants[0].apiKey}`, 'content-type': 'application/json' };
    let n = 0;
    const list = async () => {
      const response = args.create
        ? await local.app.inject({
            method: 'POST',
            url: '/requests',
            headers,
            payload: createBody(++n, `alloc-${process.pid}`),
          })
        : await local.app.inject({
            method: 'POST',
            url: '/graphql',
            headers,
            payload: { query: LIST_QUERY, variables: { first: 20 } },
          });
      if (response.statusCode !== 200 || response.body.includes('"errors"'))
        throw new Error(response.body.slice(0, 300));
    };
    let k = 0;
    const patch = async () => {
      const response = await local.app.inject({
        method: 'PATCH',
        url: `/requests/${data.requestIds[0]}`,
        headers,
        payload: { name: `alloc ${k++}` },
      });
      if (response.statusCode !== 200) throw new Error(response.body.slice(0, 300));
    };
    const load = async (count: number) => {
      let left = count;
      await Promise.all(
        Array.from({ length: args.patch ? 1 : 10 }, async () => {
          while (left-- > 0) await (args.patch ? patch() : list());
        }),
      );
    };
    console.log(`warming up: 300 ${what}s`);
    await load(300);
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !args.survivors,
    } as never);
    const requests = Number(args.requests);
    console.log(`measuring: ${requests} ${what}s`);
    await load(requests);
    const { profile } = (await session.post('HeapProfiler.getSamplingProfile')) as unknown as {
      profile: { head: SampleNode };
    };
    await session.post('HeapProfiler.stopSampling');
    session.disconnect();

    const byBucket = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let total = 0;
    const walk = (node: SampleNode) => {
      if (node.selfSize) {
        total += node.selfSize;
        const bucket = bucketOf(node.callFrame);
        byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + node.selfSize);
        // Column too: tsx's output keeps a module's code on few lines.
        const name = `${node.callFrame.functionName || '(anonymous)'} ${bucket}:${node.callFrame.lineNumber + 1}:${node.callFrame.columnNumber + 1}`;
        byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
      }
      node.children.forEach(walk);
    };
    walk(profile.head);
    const kb = (bytes: number) => `${(bytes / requests / 1024).toFixed(1).padStart(7)} KB`;
    console.log(
      `${args.survivors ? 'promoted (survived young collections)' : 'allocated'} per ${what}: ${kb(total)} (sampled every 512 bytes)`,
    );
    const top = Number(args.top);
    for (const [title, map] of [
      ['by package or file', byBucket],
      ['by function', byFunction],
    ] as const) {
      console.log(title);
      for (const [name, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
        console.log(`  ${kb(bytes)}  ${name}`);
    }
  } finally {
    await local.close();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
