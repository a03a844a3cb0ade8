import { sameSecret } from '../crypto/same-secret';
import type { Db } from '../db/db';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { MAX_METRIC_OPERATIONS } from '../limits';
import type { ObservedRequest } from '../http/observe';

/** What a module's metrics read from: the app's decorations (its workers) and the database. */
export type MetricsContext = { registry: Registry; app: FastifyInstance; db: Db };

/** A module's metrics: registers them on the app's registry (see `ModuleDescriptor.metrics`). */
export type MetricsSource = (context: MetricsContext) => void;

/**
 * A gauge read from the database on each scrape. A failing read leaves it out of that scrape (the
 * database's state is /readyz's to say) rather than failing the whole page.
 */
export function databaseGauge(
  registry: Registry,
  options: {
    name: string;
    help: string;
    labelNames?: string[];
    read: () => Promise<Array<{ labels?: Record<string, string>; value: number }>>;
  },
): void {
  new Gauge({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const { labels, value } of await options.read()) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      } catch {
        // Left out of this scrape.
      }
    },
  });
}

let processRegistry: Registry | undefined;

/**
 * How often the event loop's delay is sampled, in ms. prom-client's 10 ms is a timer waking the
 * process 100 times a second, busy or not: 3.2 ms of CPU per idle second measured here, half of what
 * an idle instance spent, and a fan-out event's share of it showed in the bench (bench/README.md). A
 * sample still measures the whole delay it met; at 100 ms there are fewer of them (0.5 ms a second).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * prom-client's defaults (CPU, memory, event-loop lag, GC), once per process: they observe GC and
 * the event loop for the process's life, so one set per app would pile up observers in a test run.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({
      register: processRegistry,
      prefix: 'gather_',
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  }
  return processRegistry;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type Metrics = {
  registry: Registry;
  /** Counts and times an answered request (by route; GraphQL by operation name too). */
  observe(request: ObservedRequest): void;
};

/**
 * This instance's Prometheus registry (one per app: tests build several in one process): the HTTP
 * and GraphQL latency histograms, the pool, the open WebSockets and
 * subscriptions, and whatever the modules add.
 */
export function createMetrics(options: {
  app: FastifyInstance;
  db: Db;
  sources: MetricsSource[];
  /** Open WebSocket connections and subscriptions of this instance. */
  sockets: () => { connections: number; subscriptions: number };
}): Metrics {
  const { app, db } = options;
  const registry = new Registry();
  processMetrics();
  const http = new Histogram({
    name: 'gather_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const graphql = new Histogram({
    name: 'gather_graphql_operation_duration_seconds',
    help: 'GraphQL operations over HTTP by operation name and HTTP status (a batch times each of its operations as the whole request)',
    labelNames: ['operation', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const operations = new Set<string>();
  const label = (operation: string) => {
    if (operations.has(operation)) return operation;
    if (operations.size >= MAX_METRIC_OPERATIONS) return 'other';
    operations.add(operation);
    return operation;
  };
  new Gauge({
    name: 'gather_websocket_connections',
    help: 'Open graphql-ws connections on this instance',
    registers: [registry],
    collect() {
      this.set(options.sockets().connections);
    },
  });
  new Gauge({
    name: 'gather_subscriptions',
    help: 'Open GraphQL subscriptions on this instance',
    registers: [registry],
    collect() {
      this.set(options.sockets().subscriptions);
    },
  });
  new Gauge({
    name: 'gather_db_pool_connections',
    help: "This instance's PostgreSQL pool: connections in use, idle, and callers waiting for one",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { pool } = db;
      this.set({ state: 'used' }, pool.totalCount - pool.idleCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  for (const source of options.sources) source({ registry, app, db });
  return {
    registry,
    observe({ route, method, status, durationMs, operations: named }) {
      const seconds = durationMs / 1000;
      http.observe({ route, method, status: String(status) }, seconds);
      for (const operation of named ?? [])
        graphql.observe({ operation: label(operation), status: String(status) }, seconds);
    },
  };
}

/**
 * `/metrics` in Prometheus's text format, behind a bearer token of its own (`METRICS_TOKEN`), never an
 * API key: a scraper holds no organization's key. Without a token it does not exist (404).
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!token) return reply.callNotFound();
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!given || !sameSecret(given, token))
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="metrics"').send({ detail: 'Not authenticated' });
    return reply
      .type(metrics.registry.contentType)
      .send(await Registry.merge([metrics.registry, processMetrics()]).metrics());
  });
}
