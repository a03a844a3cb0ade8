import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import mercurius from 'mercurius';
import { AppError, graphqlCode } from '../errors/app-error';
import { requestRefusal } from '../http/errors';
import type { Execute, GraphQLContext } from './context';
import { DateTimeScalar, JSONScalar, URLScalar } from './scalars';
import { loadSdl } from './sdl';
import { guardActors } from './actor-guard';
import { answerEnumsByName } from './enum-names';
import { declareReads } from './projection';
import { MAX_BATCH_OPERATIONS, MAX_PERSISTED_QUERIES, MAX_QUERY_DEPTH } from '../limits';
import { replyRefusal } from '../http/refusal';
import { PARSE_OPTIONS, parserLimitExtensions, queryLimitRules } from './query-limits';
import { registerGraphiQL } from './graphiql';

type FormattedError = { message: string; locations?: unknown; path?: unknown; extensions: Record<string, unknown> };

function formatOne(
  error: GraphQLError,
  context: { requestId?: string; log?: GraphQLContext['log'] },
): FormattedError[] {
  const original = error.originalError as (Error & { errors?: GraphQLError[]; code?: string }) | undefined;
  const base = { message: error.message, locations: error.locations, path: error.path };
  // mercurius wraps parse, validation and variable errors in one error carrying them all.
  if (original?.errors && Array.isArray(original.errors)) {
    return original.errors.map((inner) => ({
      message: inner.message,
      locations: inner.locations,
      extensions: (inner.extensions?.code ? inner.extensions : parserLimitExtensions(inner)) ?? {
        code: /^Variable "\$/.test(inner.message) ? 'BAD_USER_INPUT' : 'GRAPHQL_VALIDATION_FAILED',
      },
    }));
  }
  if (original instanceof AppError) {
    const extensions: Record<string, unknown> = { code: graphqlCode(original.code) };
    if (original.userErrors.length) extensions.userErrors = original.userErrors;
    if (original.retryAfterSeconds !== undefined) extensions.retryAfter = original.retryAfterSeconds;
    return [{ ...base, extensions }];
  }
  // Scalar parsing and argument coercion: graphql-js errors with no cause, or a GraphQLError cause.
  if (!original || original instanceof GraphQLError) {
    return [{ ...base, extensions: { code: 'BAD_USER_INPUT' } }];
  }
  // Anything else is a bug: logged in full, masked for the client.
  context.log?.error({ err: original, path: error.path }, 'unexpected error in GraphQL execution');
  return [
    {
      message: 'Internal server error',
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: context.requestId },
    },
  ];
}

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

const errorFormatter = (bodyLimit: number) => (execution: ExecutionResult & { statusCode?: number }, context: any) => {
  const refusal = execution.data ? undefined : refusalOf(execution.errors ?? [], bodyLimit);
  if (refusal) return { statusCode: refusal.status, response: { data: null, errors: [refusal.error] } };
  const errors = (execution.errors ?? []).flatMap((error) => formatOne(error as GraphQLError, context));
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
  /** Whether `__schema` and `__type` may be asked for. */
  introspection: boolean;
};

/** A batch beyond MAX_BATCH_OPERATIONS is refused whole, before any of its operations runs. */
async function capBatch(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!Array.isArray(request.body) || request.body.length <= MAX_BATCH_OPERATIONS) return;
  await replyRefusal(request, reply, {
    status: 400,
    message: `A batch holds at most ${MAX_BATCH_OPERATIONS} operations; this one holds ${request.body.length}`,
    extensions: { code: 'TOO_MANY_OPERATIONS', max: MAX_BATCH_OPERATIONS },
  });
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
  const format = errorFormatter(app.initialConfig.bodyLimit!);
  await app.register(mercurius, {
    schema,
    path: '/graphql',
    // Our own page (graphiql.ts) serves GraphiQL's assets itself; mercurius's loads them from a CDN.
    graphiql: false,
    // Compile a document to JavaScript from its second use; REST rows reuse a fixed set of documents.
    jit: 1,
    // Typed out of mercurius's options, but passed to graphql-jit (mercurius/index.js).
    ...({ compilerOptions: JIT_OPTIONS } as object),
    queryDepth: MAX_QUERY_DEPTH,
    graphql: { parseOptions: PARSE_OPTIONS },
    validationRules: queryLimitRules({ introspection: options.introspection }),
    allowBatchedQueries: true,
    additionalRouteOptions: { preValidation: capBatch, config: { idempotent: true } },
    // Dashboards send a document's SHA-256 instead of the document, once this instance has seen it.
    persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(MAX_PERSISTED_QUERIES),
    context: (request) => options.buildContext(request),
    errorFormatter: format as never,
  });
  // The operations of a batch run at once: each gets an entity manager and loaders of its own.
  app.graphql.addHook('preParsing', async (_schema, _source, context) => {
    if ((context as { operationsCount?: number }).operationsCount! > 1)
      Object.assign(context, options.buildContext(context.reply.request));
  });
  if (options.graphiql) registerGraphiQL(app);
  return inProcessExecutor(app, format);
}
