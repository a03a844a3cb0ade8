import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type ValidationRule,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../errors/app-error';
import { subscriptionField, type StoredEvent } from '../events/topics';
import { CROSS_SITE_MESSAGE, isOwnOrigin } from '../http/auth';
import { readCookie, SESSION_COOKIE, USER_SESSION_PREFIX } from '../http/cookies';
import { rateLimitedMessage, type RateCounter } from '../http/rate-limit';
import type { ContextFactory, GraphQLContext, Viewer } from './context';
import type { EventRoot, SubjectLoader } from './events';
import type { ErrorFormat, FormatContext } from './format';
import { MAX_MESSAGE_BYTES, MAX_PENDING_BYTES } from '../limits';
import { PARSE_OPTIONS, queryLimitRules, type QueryLimitSettings } from './query-limits';

/** ws sends a Buffer as a binary frame unless told otherwise; graphql-ws messages are text. */
const TEXT = { binary: false } as const;

/** The socket a subscriber's messages go out on (a `ws` WebSocket): text frames, and what it has not written yet. */
export type SubscriberSocket = {
  send(data: Buffer, options: { binary: false }): void;
  readonly bufferedAmount: number;
};

/** An error with its code, as graphql-ws sends it (a GraphQLError) and as `ErrorFormat` codes it (an AppError). */
const coded = (code: AppError['code'], message: string, retryAfterSeconds?: number) =>
  new GraphQLError(message, { originalError: new AppError(code, message, { retryAfterSeconds }) });

/** The context graphql-ws keeps for a subscription: who subscribed, and where its messages go. */
export type SubscriberContext = { viewer: Viewer; id: string; socket: SubscriberSocket };

/** A graphql-ws `next` message of subscription `id` around a result already serialised. */
export const nextMessage = (id: string, payload: string): Buffer =>
  Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`);

/**
 * One subscription. Its results go straight onto its socket as graphql-ws `next` messages built once
 * for its whole group (graphql-ws would serialise each result again for every subscriber: most of
 * the CPU of a large fan-out, bench/README.md). As an async iterator it only holds the subscription
 * open for graphql-ws, and yields at most one result: the error that ends a subscriber cut off for
 * not reading.
 */
export class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private closing?: ExecutionResult;
  private waiting?: (result: IteratorResult<ExecutionResult>) => void;
  private done = false;

  constructor(
    private readonly socket: SubscriberSocket,
    /** The subscription's id on its connection, chosen by the client. */
    readonly id: string,
    private readonly onClose: () => void,
    private readonly maxPendingBytes = MAX_PENDING_BYTES,
  ) {}

  /**
   * Sends a `next` message built by `nextMessage` for this subscription's id. The socket's own count
   * of bytes not yet written tells a subscriber that stopped reading: no callback per message.
   */
  deliver(message: Buffer): void {
    if (this.done) return;
    if (this.socket.bufferedAmount + message.length > this.maxPendingBytes) {
      const message = `More than ${this.maxPendingBytes} bytes of events waited for this subscriber; subscribe again`;
      this.end({ errors: [coded('RATE_LIMITED', message)] });
      return;
    }
    this.socket.send(message, TEXT);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.closing;
    if (value) {
      this.closing = undefined;
      return Promise.resolve({ value, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private end(last?: ExecutionResult): void {
    if (this.done) return;
    this.done = true;
    this.onClose();
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(last ? { value: last, done: false } : { value: undefined, done: true });
    else this.closing = last;
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.end();
    this.closing = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}

/** Subscribers with the same document, variables and viewer see the same thing: one execution each. */
type Group = {
  document: DocumentNode;
  operationName?: string | null;
  variables: Record<string, unknown>;
  viewer: Viewer;
  field: string;
  topics: Set<string>;
  requestId: string | null;
  /** The one record the field watches (`bulkSendProgressed(id:)`), or null. */
  subjectId: string | null;
  members: Set<Subscriber>;
};

export type HubOptions = {
  /** Every topic (`request.created`); each is a Subscription field (`requestCreated`). */
  topics: readonly string[];
  loadSubject: SubjectLoader;
  /** Viewers with the same audience may read the same records, so they share executions. */
  audienceOf: (viewer: Viewer) => string;
  /** How a result's errors are sent: coded, a bug masked. */
  format: ErrorFormat;
};

/**
 * Subscriptions over the graphql-ws protocol. Every event is executed once per group of identical
 * subscriptions (same document, variables, organization and visibility) and the result pushed to all
 * of its members, so thousands of dashboards watching the same thing cost one execution per event.
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly contexts: ContextFactory,
    private readonly options: HubOptions,
    private readonly log: FastifyInstance['log'],
  ) {}

  /** Whether any subscription is open here (empty groups are dropped). */
  get active(): boolean {
    return this.groups.size > 0;
  }

  get subscriberCount(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.members.size;
    return count;
  }

  subscribe(
    args: ExecutionArgs,
    { viewer, id, socket }: SubscriberContext,
  ): AsyncIterableIterator<ExecutionResult> | ExecutionResult {
    const operation = getOperationAST(args.document, args.operationName);
    const selection = operation?.selectionSet.selections[0];
    if (!operation || selection?.kind !== Kind.FIELD)
      return { errors: [coded('BAD_USER_INPUT', 'A subscription selects one root field')] };
    const field = selection.name.value;
    const variables = (args.variableValues ?? {}) as Record<string, unknown>;
    const definition = this.schema.getSubscriptionType()?.getFields()[field];
    if (!definition) return { errors: [coded('BAD_USER_INPUT', `Subscription has no field ${field}`)] };
    // Arguments coerced as execution would: WebhookTopic values arrive as their topics.
    const values = getArgumentValues(definition, selection, variables) as {
      topics?: string[] | null;
      requestId?: string | null;
      id?: string | null;
    };
    const all = this.options.topics;
    const topics = new Set(
      field === 'events' ? (values.topics ?? all) : all.filter((topic) => subscriptionField(topic) === field),
    );
    const requestId = values.requestId ?? null;
    const subjectId = values.id ?? null;
    const key = [
      printed(args.document),
      args.operationName ?? '',
      JSON.stringify(variables),
      viewer.organizationId,
      this.options.audienceOf(viewer),
    ].join('\n');
    let group = this.groups.get(key);
    if (!group) {
      group = {
        document: args.document,
        operationName: args.operationName,
        variables,
        viewer,
        field,
        topics,
        requestId,
        subjectId,
        members: new Set(),
      };
      this.groups.set(key, group);
    }
    const subscriber: Subscriber = new Subscriber(socket, id, () => {
      group.members.delete(subscriber);
      if (group.members.size === 0) this.groups.delete(key);
    });
    group.members.add(subscriber);
    return subscriber;
  }

  private queue: Promise<void> = Promise.resolve();

  /** Queues an event: events reach every subscriber in the order they are published. */
  publish(event: StoredEvent): Promise<void> {
    this.queue = this.queue.then(() => this.dispatch(event));
    return this.queue;
  }

  /** Runs an event through every interested group; resolves when all results are queued. */
  private async dispatch(event: StoredEvent): Promise<void> {
    const interested = [...this.groups.values()].filter(
      (g) =>
        g.viewer.organizationId === event.organizationId &&
        g.topics.has(event.topic) &&
        (g.requestId === null || g.requestId === event.requestId) &&
        (g.subjectId === null || g.subjectId === event.subjectId),
    );
    await Promise.all(interested.map((group) => this.run(group, event)));
  }

  private async run(group: Group, event: StoredEvent): Promise<void> {
    try {
      const ctx = this.contexts.forViewer(group.viewer, { log: this.log, requestId: `event:${event.id}` });
      const subject = await this.options.loadSubject(ctx, event);
      if (!subject) return;
      const root =
        group.field === 'events'
          ? {
              events: {
                eventId: event.id,
                topic: event.topic,
                organizationId: event.organizationId,
                createdAt: event.createdAt,
                updated: event.updated ?? [],
                subjectType: event.subjectType,
                subject,
              } satisfies EventRoot,
            }
          : { [group.field]: subject };
      const result = await execute({
        schema: this.schema,
        document: group.document,
        rootValue: root,
        contextValue: ctx,
        variableValues: group.variables,
        operationName: group.operationName,
      });
      const payload = JSON.stringify(
        result.errors ? { ...result, errors: this.options.format.execution(result.errors, ctx) } : result,
      );
      // One message for each subscription id in the group: clients that number their subscriptions
      // (1, 2, …) share it; graphql-ws's own client draws a UUID per subscription, so each gets its own.
      const messages = new Map<string, Buffer>();
      for (const member of group.members) {
        let message = messages.get(member.id);
        if (!message) messages.set(member.id, (message = nextMessage(member.id, payload)));
        member.deliver(message);
      }
    } catch (err) {
      this.log.error({ err, eventId: event.id }, 'subscription execution failed');
    }
  }
}

export type SubscriptionServerOptions = {
  hub: SubscriptionHub;
  contexts: ContextFactory;
  resolveViewer: (key: string) => Promise<Viewer | null>;
  /** The user a session cookie names (null: none, or ended); its handshake must come from the service's own origin. */
  resolveSession: (token: string) => Promise<Viewer | null>;
  /** The service's public URL: its origin is the service's own. */
  publicUrl: string;
  /** The limits a document is held to (those of HTTP), and whether introspection is on. */
  queryLimits: QueryLimitSettings;
  /** Each operation counts against its connection's key, as a request over HTTP does. */
  rateLimits: Pick<RateCounter, 'countCredential'>;
  /** How errors are sent: as over HTTP. */
  format: ErrorFormat;
};

/** `{"authorization": "Bearer <key>"}` or `{"apiKey": "<key>"}` in connection_init. */
function keyFromConnectionParams(params: Record<string, unknown> | undefined): string | undefined {
  const authorization = params?.authorization ?? params?.Authorization;
  if (typeof authorization === 'string') return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return typeof params?.apiKey === 'string' ? params.apiKey : undefined;
}

type ConnectionExtra = { viewer?: Viewer; credential?: string; request: IncomingMessage; socket: WebSocket };

/** A handshake's session cookie, once its user and its origin are checked. */
type HandshakeSession = { viewer: Viewer; credential: string };

/** Answers a handshake with an HTTP refusal instead of the upgrade, and closes its connection. */
function refuseHandshake(socket: Duplex, status: number, reason: string, detail: string): void {
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** What graphql-ws runs an operation with: a subscription's for the hub, a query's or mutation's as over HTTP. */
type OperationContext = SubscriberContext | GraphQLContext;

/** How long a subscriber has on shutdown to answer the closing handshake. */
const CLOSE_HANDSHAKE_MS = 2_000;

/** How often every socket is pinged; one that has not answered the previous ping by then is dropped. */
const KEEP_ALIVE_MS = 12_000;

/**
 * The sockets are pinged in this many slices, one slice per tick (every 250 ms at 12 s): pinging
 * them all at once cost 20,000 pings and their pongs in one go with 20,000 subscribers, half a second
 * of CPU that held up whichever event came then (the slowest of a bench run's 20, bench/README.md).
 */
const KEEP_ALIVE_SLICES = 48;

/**
 * One interval pings the sockets of `wss` (graphql-ws's `useServer` keeps an interval, and a timeout
 * per ping, for each socket: timers by the thousand, each a wake-up of its own), a slice of them per
 * tick, so each socket is pinged once per `intervalMs`. A socket that has not answered its previous
 * ping with a pong when the next is due is terminated: a peer gone without a closing handshake (a
 * cable pulled, a laptop shut) is noticed within two intervals, as graphql-ws's own keep-alive
 * notices it.
 */
export function keepAlive(
  wss: WebSocketServer,
  intervalMs = KEEP_ALIVE_MS,
  slices = KEEP_ALIVE_SLICES,
): { stop(): void } {
  const unanswered = new WeakSet<WebSocket>();
  const slots = Array.from({ length: slices }, () => new Set<WebSocket>());
  const slotOf = new WeakMap<WebSocket, Set<WebSocket>>();
  let joined = 0;
  function answered(this: WebSocket) {
    unanswered.delete(this);
  }
  function closed(this: WebSocket) {
    slotOf.get(this)?.delete(this);
  }
  const onConnection = (socket: WebSocket) => {
    const slot = slots[joined++ % slices];
    slot.add(socket);
    slotOf.set(socket, slot);
    socket.on('pong', answered);
    socket.once('close', closed);
  };
  wss.on('connection', onConnection);
  let tick = 0;
  const timer = setInterval(() => {
    for (const socket of slots[tick++ % slices]) {
      if (socket.readyState !== socket.OPEN) continue;
      if (unanswered.has(socket)) {
        socket.terminate();
        continue;
      }
      unanswered.add(socket);
      socket.ping();
    }
  }, intervalMs / slices);
  return {
    stop() {
      clearInterval(timer);
      wss.off('connection', onConnection);
    },
  };
}

/** Distinct subscription documents kept parsed and validated. */
const MAX_PREPARED_DOCUMENTS = 1000;

/**
 * Parses and validates each distinct subscription document once: dashboards subscribe with the same
 * few, and the group they join is found by the same parsed document.
 */
function preparedDocuments(
  schema: GraphQLSchema,
  rules: ValidationRule[],
): (query: string) => DocumentNode | readonly GraphQLError[] {
  const prepared = new Map<string, DocumentNode | readonly GraphQLError[]>();
  return (query) => {
    let entry = prepared.get(query);
    if (!entry) {
      try {
        const document = parse(query, PARSE_OPTIONS);
        const errors = validate(schema, document, [...specifiedRules, ...rules]);
        entry = errors.length ? errors : document;
      } catch (err) {
        if (!(err instanceof GraphQLError)) throw err;
        entry = [err];
      }
      if (prepared.size >= MAX_PREPARED_DOCUMENTS) prepared.delete(prepared.keys().next().value!);
      prepared.set(query, entry);
    }
    return entry;
  };
}

const printedDocuments = new WeakMap<DocumentNode, string>();

/** A document's text, printed once per parsed document. */
function printed(document: DocumentNode): string {
  let text = printedDocuments.get(document);
  if (text === undefined) {
    text = print(document);
    printedDocuments.set(document, text);
  }
  return text;
}

/**
 * Serves graphql-ws (`graphql-transport-ws`) on /graphql beside mercurius's HTTP routes. An
 * unauthenticated connection_init is closed with 4403, as the protocol recommends.
 */
export function registerSubscriptionServer(
  app: FastifyInstance,
  schema: GraphQLSchema,
  options: SubscriptionServerOptions,
): { connections(): number } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const prepare = preparedDocuments(schema, queryLimitRules(options.queryLimits));
  const { format } = options;
  // A subscription's context holds no log or request id: its errors are logged here.
  const formatContext = (context: OperationContext): FormatContext =>
    'requestId' in context ? context : { log: app.log };
  useServer<Record<string, unknown>, ConnectionExtra>(
    {
      schema,
      // A key in connection_init, else the session cookie its handshake carried (checked at the upgrade).
      onConnect: async (ctx) => {
        const key = keyFromConnectionParams(ctx.connectionParams);
        const session = key ? undefined : handshakeSessions.get(ctx.extra.request);
        const viewer = key ? await options.resolveViewer(key) : (session?.viewer ?? null);
        if (!viewer) return false;
        ctx.extra.viewer = viewer;
        ctx.extra.credential = key ?? session!.credential;
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const retryAfter = await options.rateLimits.countCredential(ctx.extra.credential!);
        if (retryAfter !== undefined) return [coded('RATE_LIMITED', rateLimitedMessage(retryAfter), retryAfter)];
        const document = prepare(payload.query);
        if (Array.isArray(document)) return document;
        return {
          schema,
          document: document as DocumentNode,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
      // A subscription's is kept for its life: only what the hub needs, not a whole operation context.
      context: (ctx, id, _payload, args): OperationContext =>
        getOperationAST(args.document, args.operationName)?.operation === 'subscription'
          ? { viewer: ctx.extra.viewer!, id, socket: ctx.extra.socket }
          : options.contexts.forViewer(ctx.extra.viewer!, { log: app.log, requestId: randomUUID() }),
      subscribe: (args) => options.hub.subscribe(args, args.contextValue as SubscriberContext),
      execute: (args) => execute(args),
      // Results and refusals leave coded, as over HTTP: a refused document's errors (parse, validation,
      // limits) carry no cause, the others (a rate limit, a failed operation) an AppError or a bug's.
      onNext: (_ctx, _id, _payload, args, result) =>
        result.errors
          ? { ...result, errors: format.execution(result.errors, formatContext(args.contextValue as OperationContext)) }
          : undefined,
      onError: (_ctx, _id, _payload, errors) =>
        errors.flatMap((error) =>
          error.originalError ? format.execution([error], { log: app.log }) : format.document([error]),
        ),
    },
    wss,
    // No timers per socket: `keepAlive` below pings them all from one.
    0,
  );
  const alive = keepAlive(wss);
  const handshakeSessions = new WeakMap<IncomingMessage, HandshakeSession>();
  /**
   * A handshake that carries a signed-in user's session cookie must come from a page of the service's own origin
   * (browsers send `Origin` with every handshake, and any site's page may open one): else 403, no upgrade.
   */
  const checkSession = async (request: IncomingMessage, socket: Duplex): Promise<boolean> => {
    const token = readCookie(request.headers, SESSION_COOKIE, USER_SESSION_PREFIX);
    const viewer = token ? await options.resolveSession(token) : null;
    if (!token || !viewer) return true;
    const protocol = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    if (!isOwnOrigin(request.headers.origin, { publicUrl: options.publicUrl, protocol, host: request.headers.host })) {
      refuseHandshake(socket, 403, 'Forbidden', CROSS_SITE_MESSAGE);
      return false;
    }
    handshakeSessions.set(request, { viewer, credential: token });
    return true;
  };
  const onUpgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.destroy();
      return;
    }
    // A client gone while its cookie is looked up must not leave an 'error' without a listener.
    const gone = () => socket.destroy();
    socket.on('error', gone);
    try {
      if (!(await checkSession(request, socket))) return;
    } catch (err) {
      app.log.error({ err }, 'checking a WebSocket handshake failed');
      refuseHandshake(socket, 500, 'Internal Server Error', 'Internal server error');
      return;
    }
    if (socket.destroyed) return;
    socket.off('error', gone);
    wss.handleUpgrade(request, socket, head, (ws) => {
      wss.emit('connection', ws, request);
      // A client breaking the protocol (a message over the limit) is no server fault: ws has closed
      // the socket with its code already, so it is logged, not printed to the console as graphql-ws does.
      ws.removeAllListeners('error');
      ws.on('error', (err) => app.log.info({ err }, 'WebSocket client error'));
    });
  };
  app.server.on('upgrade', onUpgrade);
  // Before the HTTP server closes, which waits for every socket, upgraded ones too: closed after it,
  // subscribers held shutdown open until they left, then saw 1006 rather than "going away".
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    alive.stop();
    await new Promise<void>((resolve) => {
      if (wss.clients.size === 0) return resolve();
      let open = wss.clients.size;
      for (const client of wss.clients) {
        client.once('close', () => --open === 0 && resolve());
        client.close(1001, 'Server shutting down');
      }
      // A client that never answers the closing handshake would hold the shutdown for ws's 30 s.
      setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, CLOSE_HANDSHAKE_MS).unref();
    });
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { connections: () => wss.clients.size };
}
