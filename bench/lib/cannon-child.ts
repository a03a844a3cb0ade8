import autocannon from 'autocannon';
import { createBodyWithItems } from './documents';

// autocannon in a process of its own (started by lib/cannon.ts with startHelper), so the load
// generator's CPU is neither the runner's nor the server's. One message `run` in, one `done` out, per
// run; it exits when the runner's IPC channel closes.
//
// kinds: `read`   one request, the same body each time (the list), its answers checked by prefix;
//        `create` POST /requests, a new body each time (5 items, 2 new recipients), ids kept;
//        `patch`  PATCH /requests/:id over the ids given, a new name each time;
//        `mixed`  creates and patches in turn on each connection.

export type CannonRun = {
  type: 'run';
  url: string;
  apiKey: string;
  kind: 'read' | 'create' | 'patch' | 'mixed';
  connections: number;
  /** Seconds, or `amount` requests in all. */
  duration?: number;
  amount?: number;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as answered. */
  rate?: number;
  path?: string;
  body?: string;
  /** What a read's answer starts with. */
  prefix?: string;
  /** Requests to patch. */
  ids?: string[];
  tag?: string;
};

export type CannonResult = {
  type: 'done';
  requests: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  failures: number;
  /** Ids of the requests created (create and mixed). */
  created: string[];
};

function run(message: CannonRun): Promise<CannonResult> {
  const headers = { authorization: `Bearer ${message.apiKey}`, 'content-type': 'application/json' };
  const created: string[] = [];
  let n = 0;
  let p = 0;
  const tag = `${message.tag ?? 'u'}${Date.now().toString(36)}`;
  const ids = message.ids ?? [];
  const create: autocannon.Request = {
    method: 'POST',
    path: '/requests',
    headers,
    setupRequest: (req) => ({ ...req, body: JSON.stringify(createBodyWithItems(++n, tag, 5)) }),
    onResponse: (status, body) => {
      if (status === 201 || status === 200) created.push((JSON.parse(body) as { id: string }).id);
    },
  };
  const patch: autocannon.Request = {
    method: 'PATCH',
    path: '/requests/x',
    headers,
    setupRequest: (req) => {
      const id = ids.length ? ids[p % ids.length] : created[p % Math.max(created.length, 1)];
      p++;
      return { ...req, path: `/requests/${id}`, body: JSON.stringify({ name: `Patched ${tag}-${p}` }) };
    },
  };
  const requests: autocannon.Request[] =
    message.kind === 'read'
      ? [{ method: message.body ? 'POST' : 'GET', path: message.path!, headers, body: message.body }]
      : message.kind === 'create'
        ? [create]
        : message.kind === 'patch'
          ? [patch]
          : [create, patch];
  const prefix = message.prefix;
  return Promise.resolve(
    autocannon({
      url: message.url,
      connections: message.connections,
      ...(message.amount ? { amount: message.amount } : { duration: message.duration ?? 10 }),
      ...(message.rate ? { overallRate: message.rate } : {}),
      pipelining: 1,
      timeout: 20,
      requests,
      ...(prefix ? { verifyBody: (body: string) => body.startsWith(prefix) && !body.includes('"errors":[') } : {}),
    }),
  ).then((result): CannonResult => ({
    type: 'done',
    requests: result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts + result.mismatches,
    created,
  }));
}

process.on('message', (message: CannonRun) => {
  if (message?.type !== 'run') return;
  run(message).then(
    (result) => process.send!(result),
    (err) => process.send!({ type: 'failed', error: String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
