import autocannon from 'autocannon';
import type { ServerProcess } from './servers';

/** One kind of request a contender answers, as autocannon sends it. */
export type Target = {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Varies each request (an id, a unique email); the same generator for both sides of a comparison. */
  next?: () => { path?: string; body?: string };
  /** A cheap check of every response body (counted as mismatches when it fails). */
  verify: (body: string) => boolean;
};

export type RunFigures = {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Highest resident set size of the server seen during the run. */
  rss_mb: number;
  /** Server CPU use during the run, in % of one core. */
  cpu_pct: number;
  /** Server CPU time per request served (less sensitive than req/s to other processes on the machine). */
  cpu_ms_per_req: number;
  requests: number;
  /** Non-2xx answers, connection errors, timeouts and bodies that failed the check. */
  failures: number;
};

export type LoadOptions = { connections: number; duration: number; warmup: number; apiKey: string };

function cannon(server: ServerProcess, target: Target, options: LoadOptions, duration: number) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
  if (target.method === 'POST') headers['content-type'] = 'application/json';
  const request: autocannon.Request = { method: target.method, path: target.path, headers, body: target.body };
  if (target.next) {
    const next = target.next;
    request.setupRequest = (req) => ({ ...req, ...next() });
  }
  return autocannon({
    url: server.url,
    connections: options.connections,
    duration,
    pipelining: 1,
    timeout: 20,
    requests: [request],
    verifyBody: target.verify,
  });
}

/** A warm-up (discarded), then the measured run, sampling the server's RSS and CPU meanwhile. */
export async function measure(
  server: ServerProcess,
  target: Target,
  options: LoadOptions,
  profilePath?: string,
): Promise<RunFigures> {
  if (options.warmup > 0) await cannon(server, target, options, options.warmup);
  if (profilePath) await server.profileStart();
  let rss = server.rssMb();
  const sampler = setInterval(() => {
    rss = Math.max(rss, server.rssMb());
  }, 200);
  const cpuBefore = server.cpuSeconds();
  const started = process.hrtime.bigint();
  let result: autocannon.Result;
  try {
    result = await cannon(server, target, options, options.duration);
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = server.cpuSeconds() - cpuBefore;
  if (profilePath) await server.profileStop(profilePath);
  rss = Math.max(rss, server.rssMb());
  return {
    rps: result.requests.total / result.duration,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    rss_mb: rss,
    cpu_pct: (cpu / seconds) * 100,
    cpu_ms_per_req: result.requests.total ? (cpu * 1000) / result.requests.total : NaN,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts + result.mismatches,
  };
}
