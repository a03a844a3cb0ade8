import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { execute, getOperationAST, Kind, print, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Viewer } from '../../modules/identity/viewer';
import { subscriptionField, TOPICS, type StoredEvent, type Topic } from '../events/topics';
import type { ContextFactory, GraphQLContext } from './context';

/** Events a subscriber may have waiting before it is cut off (a client that stopped reading). */
export const MAX_PENDING_EVENTS = 1000;

/** What an event's root field resolves to, as `ctx.viewer` may see it; null hides the event from it. */
export type SubjectLoader = (ctx: GraphQLContext, event: StoredEvent) => Promise<object | null>;

/** The root value of `Subscription.events`: the event with the record it is about. */
export type EventRoot = {
  eventId: string;
  topic: Topic;
  organizationId: string;
  createdAt: Date;
  updated: string[];
  subjectType: StoredEvent['subjectType'];
  subject: object;
};

/** A pushable async iterator: one per subscription, fed by its group. */
class Channel implements AsyncIterableIterator<ExecutionResult> {
  private readonly buffer: ExecutionResult[] = [];
  private waiting?: (result: IteratorResult<ExecutionResult>) => void;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(result: ExecutionResult): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: result, done: false });
      return;
    }
    if (this.buffer.length >= MAX_PENDING_EVENTS) {
      this.buffer.length = 0;
      this.buffer.push({ errors: [{ message: `More than ${MAX_PENDING_EVENTS} events waited for this subscriber; subscribe again`, extensions: { code: 'RATE_LIMITED' } } as never] });
      this.close();
      return;
    }
    this.buffer.push(result);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.buffer.shift();
    if (value) return Promise.resolve({ value, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private close(): void {
    this.done = true;
    this.onClose();
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.close();
    this.buffer.length = 0;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
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
  topics: Set<Topic>;
  requestId: string | null;
  members: Set<Channel>;
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
    private readonly loadSubject: SubjectLoader,
    private readonly log: FastifyInstance['log'],
  ) {}

  get subscriberCount(): number {
    let count = 0;
    for (const group of this.groups.values()) count += group.members.size;
    return count;
  }

  subscribe(args: ExecutionArgs, viewer: Viewer): AsyncIterableIterator<ExecutionResult> | ExecutionResult {
    const operation = getOperationAST(args.document, args.operationName);
    const selection = operation?.selectionSet.selections[0];
    if (!operation || selection?.kind !== Kind.FIELD) return { errors: [{ message: 'A subscription selects one root field' } as never] };
    const field = selection.name.value;
    const variables = (args.variableValues ?? {}) as Record<string, unknown>;
    const definition = this.schema.getSubscriptionType()?.getFields()[field];
    if (!definition) return { errors: [{ message: `Subscription has no field ${field}` } as never] };
    // Arguments coerced as execution would: WebhookTopic values arrive as their topics.
    const values = getArgumentValues(definition, selection, variables) as { topics?: Topic[] | null; requestId?: string | null };
    const topics = new Set<Topic>(field === 'events' ? (values.topics ?? [...TOPICS]) : TOPICS.filter((topic) => subscriptionField(topic) === field));
    const requestId = values.requestId ?? null;
    const key = [print(args.document), args.operationName ?? '', JSON.stringify(variables), viewer.organizationId, viewer.role === 'ADMIN' ? 'admin' : viewer.userId].join('\n');
    let group = this.groups.get(key);
    if (!group) {
      group = { document: args.document, operationName: args.operationName, variables, viewer, field, topics, requestId, members: new Set() };
      this.groups.set(key, group);
    }
    const channel: Channel = new Channel(() => {
      group.members.delete(channel);
      if (group.members.size === 0) this.groups.delete(key);
    });
    group.members.add(channel);
    return channel;
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
      (g) => g.viewer.organizationId === event.organizationId && g.topics.has(event.topic) && (g.requestId === null || g.requestId === event.requestId),
    );
    await Promise.all(interested.map((group) => this.run(group, event)));
  }

  private async run(group: Group, event: StoredEvent): Promise<void> {
    try {
      const ctx = this.contexts.forViewer(group.viewer, { log: this.log, requestId: `event:${event.id}` });
      const subject = await this.loadSubject(ctx, event);
      if (!subject) return;
      const root =
        group.field === 'events'
          ? { events: { eventId: event.id, topic: event.topic, organizationId: event.organizationId, createdAt: event.createdAt, updated: event.updated ?? [], subjectType: event.subjectType, subject } satisfies EventRoot }
          : { [group.field]: subject };
      const result = await execute({ schema: this.schema, document: group.document, rootValue: root, contextValue: ctx, variableValues: group.variables, operationName: group.operationName });
      for (const member of group.members) member.push(result);
    } catch (err) {
      this.log.error({ err, eventId: event.id }, 'subscription execution failed');
    }
  }
}

export type SubscriptionServerOptions = {
  hub: SubscriptionHub;
  contexts: ContextFactory;
  resolveViewer: (key: string) => Promise<Viewer | null>;
};

/** `{"authorization": "Bearer <key>"}` or `{"apiKey": "<key>"}` in connection_init. */
function keyFromConnectionParams(params: Record<string, unknown> | undefined): string | undefined {
  const authorization = params?.authorization ?? params?.Authorization;
  if (typeof authorization === 'string') return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return typeof params?.apiKey === 'string' ? params.apiKey : undefined;
}

type ConnectionExtra = { viewer?: Viewer; request: IncomingMessage };

/**
 * Serves graphql-ws (`graphql-transport-ws`) on /graphql beside mercurius's HTTP routes. An
 * unauthenticated connection_init is closed with 4403, as the protocol recommends.
 */
export function registerSubscriptionServer(app: FastifyInstance, schema: GraphQLSchema, options: SubscriptionServerOptions): void {
  const wss = new WebSocketServer({ noServer: true });
  useServer<Record<string, unknown>, ConnectionExtra>(
    {
      schema,
      onConnect: async (ctx) => {
        const key = keyFromConnectionParams(ctx.connectionParams);
        const viewer = key ? await options.resolveViewer(key) : null;
        if (!viewer) return false;
        ctx.extra.viewer = viewer;
        return true;
      },
      context: (ctx) => options.contexts.forViewer(ctx.extra.viewer!, { log: app.log, requestId: 'ws' }),
      subscribe: (args) => options.hub.subscribe(args, (args.contextValue as GraphQLContext).viewer),
      execute: (args) => execute(args),
    },
    wss,
  );
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  app.server.on('upgrade', onUpgrade);
  app.addHook('onClose', async () => {
    app.server.off('upgrade', onUpgrade);
    for (const client of wss.clients) client.close(1001, 'Server shutting down');
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
