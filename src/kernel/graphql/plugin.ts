import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse, type GraphQLError, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import mercurius, { type PersistedQueryProvider } from 'mercurius';
import { requestRefusal } from '../http/errors';
import type { Execute, GraphQLContext } from './context';
import { DateTimeScalar, JSONScalar, URLScalar } from './scalars';
import { loadSdl } from './sdl';
import { guardActors } from './actor-guard';
import { answerEnumsByName } from './enum-names';
import { declareReads } from './projection';
import { MAX_BATCH_OPERATIONS, MAX_PERSISTED_QUERIES } from '../limits';
import { replyRefusal } from '../http/refusal';
import { batchExcess, PARSE_OPTIONS, queryLimitRules, type BatchOperation } from './query-limits';
import { errorFormat, type ErrorFormat, type FormattedError } from './format';
import { registerGraphiQL } from './graphiql';

/**
 * The HTTP request refused before GraphQL ran (a body over the limit, not JSON or nested too deep; a
 * GET without a query), which mercurius reports as one error of no field: REST's status and message,
 * in GraphQL's shape. Its document's validation errors (carried as `errors`) are formatted as usual.
 */
function refusalOf(
  errors: readonly GraphQLError[],
  bodyLimit: number,
): { status: number; error: FormattedError } | undefined {
  const [error] = errors;
  const original = error?.originalError as (Error & { errors?: unknown }) | undefined;
  if (errors.length !== 1 || error.path || !original || Array.isArray(original.errors)) return undefined;
  const persisted = Object.hasOwn(PERSISTED_QUERY_CODES, original.message) && PERSISTED_QUERY_CODES[original.message];
  if (persisted) return { status: 400, error: { message: original.message, extensions: { code: persisted } } };
  const refusal = requestRefusal(original, bodyLimit);
  if (!refusal) return undefined;
  const message =
    typeof refusal.detail === 'string' ? refusal.detail : refusal.detail.map((entry) => entry.msg).join('; ');
  // REST's 422 (JSON it will not take) is GraphQL's 400: bad input, no data.
  return refusal.status === 413
    ? { status: 413, error: { message, extensions: { code: 'PAYLOAD_TOO_LARGE' } } }
    : {
        status: refusal.status === 422 ? 400 : refusal.status,
        error: { message, extensions: { code: 'BAD_USER_INPUT' } },
      };
}

/**
 * The refusals of automatic persisted queries (by mercurius's messages, Apollo's), in the codes Apollo's
 * clients act on: on PERSISTED_QUERY_NOT_FOUND they send the document along with its hash. A hash
 * that does not match its document is a 400 BAD_USER_INPUT like any refused request.
 */
/**
 * graphql-jit's options: built-in scalars and enums answered as the resolvers return them, without a
 * serializer call per leaf (with the location and path arrays an error would need, built at every
 * call: a fifth of what a list request allocated). Resolvers return values of their fields' types
 * (records hold what the columns hold; counts are numbers); a null for a non-null field is still an
 * error, and custom scalars (DateTime, URL, JSON) still go through their serializers.
 */
const JIT_OPTIONS = { disableLeafSerialization: true };

const PERSISTED_QUERY_CODES: Record<string, string> = {
  PersistedQueryNotFound: 'PERSISTED_QUERY_NOT_FOUND',
  PersistedQueryNotSupported: 'PERSISTED_QUERY_NOT_SUPPORTED',
};

/** Codes of a document refused before it ran: the client's to fix, a 400. */
const REFUSED_DOCUMENT = new Set([
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'QUERY_TOO_COMPLEX',
  'INTROSPECTION_DISABLED',
]);

const errorFormatter =
  (bodyLimit: number, format: ErrorFormat) => (execution: ExecutionResult & { statusCode?: number }, context: any) => {
    const refusal = execution.data ? undefined : refusalOf(execution.errors ?? [], bodyLimit);
    if (refusal) return { statusCode: refusal.status, response: { data: null, errors: [refusal.error] } };
    const errors = format.execution(execution.errors ?? [], context);
    const validation = !execution.data && errors.some((e) => REFUSED_DOCUMENT.has(e.extensions.code as string));
    return {
      statusCode: execution.data ? 200 : validation ? 400 : (execution.statusCode ?? 200),
      response: { data: execution.data ?? null, errors },
    };
  };

export type GraphQLPluginOptions = {
  resolvers: IResolvers<any, GraphQLContext>[];
  buildContext: (request: FastifyRequest) => GraphQLContext;
  /** The in-browser IDE at /graphiql. */
  graphiql: boolean;
  /** Whether `__schema` and `__type` may be asked for, and errors suggest names. */
  introspection: boolean;
  /** Aliases an operation, or a batch's operations together, may hold. */
  maxAliases: number;
  /**
   * Counts a batch's operations beyond the first against the rate limit its request counted against
   * (the request itself counted once), answering 429 past it.
   */
  countOperations: (request: FastifyRequest, reply: FastifyReply, more: number) => Promise<void>;
};

/** The document a batch's operation runs: its own, or the one its persisted query's hash names. */
async function documentOf(operation: unknown, persisted: PersistedQueryProvider): Promise<BatchOperation | undefined> {
  if (typeof operation !== 'object' || operation === null) return undefined;
  const { query, operationName } = operation as { query?: unknown; operationName?: unknown };
  const name = typeof operationName === 'string' ? operationName : undefined;
  if (typeof query === 'string') return { query, operationName: name };
  if (!persisted.isPersistedQuery(operation as never)) return undefined;
  const known = await persisted.getQueryFromHash(persisted.getHash(operation as never));
  return known === undefined ? undefined : { query: known, operationName: name };
}

/**
 * Runs the service's own documents in-process (REST rows, event renders). A document's first run goes
 * through mercurius (`app.graphql`: parsed, validated, its limits checked, like any document); later
 * runs call the query graphql-jit compiled from it. Through `app.graphql` every run had its variables
 * coerced twice (graphql-js's execution context to check them, then the compiled query's own), which
 * showed in the create's profile. Variables the compiled query refuses (nothing ran) go back through
 * `app.graphql`, so the refusal is mercurius's as before; a run's errors are formatted as mercurius
 * formats them. The documents are the rows' and renderers' own: a fixed set, so the map is unbounded.
 */
function inProcessExecutor(app: FastifyInstance, format: ReturnType<typeof errorFormatter>): Execute {
  const compiled = new Map<string, CompiledQuery>();
  const viaMercurius: Execute = (source, ctx, variables) =>
    app.graphql(source, ctx as never, variables) as ReturnType<Execute>;
  return async (source, ctx, variables) => {
    const query = compiled.get(source);
    if (!query) {
      const first = await viaMercurius(source, ctx, variables);
      if (!first.errors?.length) {
        const made = compileQuery(app.graphql.schema, parse(source, PARSE_OPTIONS), undefined, JIT_OPTIONS);
        if (isCompiledQuery(made)) compiled.set(source, made);
      }
      return first;
    }
    const execution = await query.query(undefined, ctx, variables);
    if (!execution.errors?.length) return execution;
    if (!('data' in execution)) return viaMercurius(source, ctx, variables);
    const { response } = format(execution, ctx);
    return response;
  };
}

export async function registerGraphQL(app: FastifyInstance, options: GraphQLPluginOptions): Promise<Execute> {
  const schema = makeExecutableSchema<GraphQLContext>({
    typeDefs: loadSdl(),
    resolvers: [{ DateTime: DateTimeScalar, URL: URLScalar, JSON: JSONScalar }, ...options.resolvers],
    // Every field without a resolver must exist on its parent: a typo is a start-up failure.
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  guardActors(schema);
  answerEnumsByName(schema);
  declareReads(schema, options.resolvers as Record<string, unknown>[]);
  // Fastify's validated options always hold the limit (its default when none was given).
  const format = errorFormatter(app.initialConfig.bodyLimit!, errorFormat({ suggestions: options.introspection }));
  const persisted = mercurius.persistedQueryDefaults.automatic(MAX_PERSISTED_QUERIES);
  /**
   * A batch is refused whole, before any of its operations runs, beyond MAX_BATCH_OPERATIONS or when
   * its operations together break a limit of one operation; each operation counts against the rate limit.
   */
  const checkBatch = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!Array.isArray(request.body) || request.body.length < 2) return;
    const count = request.body.length;
    if (count > MAX_BATCH_OPERATIONS) {
      await replyRefusal(request, reply, {
        status: 400,
        message: `A batch holds at most ${MAX_BATCH_OPERATIONS} operations; this one holds ${count}`,
        extensions: { code: 'TOO_MANY_OPERATIONS', max: MAX_BATCH_OPERATIONS },
      });
      return;
    }
    const operations = await Promise.all(request.body.map((operation) => documentOf(operation, persisted)));
    const excess = batchExcess(
      schema,
      operations.filter((operation) => operation !== undefined),
      options.maxAliases,
    );
    if (excess) {
      await replyRefusal(request, reply, { status: 400, ...excess });
      return;
    }
    await options.countOperations(request, reply, count - 1);
  };
  await app.register(mercurius, {
    schema,
    path: '/graphql',
    // Our own page (graphiql.ts) serves GraphiQL's assets itself; mercurius's loads them from a CDN.
    graphiql: false,
    // Compile a document to JavaScript from its second use; REST rows reuse a fixed set of documents.
    jit: 1,
    // Typed out of mercurius's options, but passed to graphql-jit (mercurius/index.js).
    ...({ compilerOptions: JIT_OPTIONS } as object),
    graphql: { parseOptions: PARSE_OPTIONS },
    validationRules: queryLimitRules(options),
    allowBatchedQueries: true,
    additionalRouteOptions: { preValidation: checkBatch, config: { idempotent: true } },
    // Dashboards send a document's SHA-256 instead of the document, once this instance has seen it.
    persistedQueryProvider: persisted,
    context: (request) => options.buildContext(request),
    errorFormatter: format as never,
  });
  // The operations of a batch run at once: each gets an entity manager and loaders of its own.
  app.graphql.addHook('preParsing', async (_schema, _source, context) => {
    if ((context as { operationsCount?: number }).operationsCount! > 1)
      Object.assign(context, options.buildContext(context.reply.request));
  });
  if (options.graphiql) registerGraphiQL(app, { introspection: options.introspection });
  return inProcessExecutor(app, format);
}
