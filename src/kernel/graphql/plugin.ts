import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, type ExecutionResult } from 'graphql';
import mercurius from 'mercurius';
import { AppError, graphqlCode } from '../errors/app-error';
import type { GraphQLContext } from './context';
import { DateTimeScalar, JSONScalar, URLScalar } from './scalars';
import { loadSdl } from './sdl';
import { MAX_QUERY_DEPTH } from '../limits';

type FormattedError = { message: string; locations?: unknown; path?: unknown; extensions: Record<string, unknown> };

function formatOne(error: GraphQLError, context: { requestId?: string; log?: GraphQLContext['log'] }): FormattedError[] {
  const original = error.originalError as (Error & { errors?: GraphQLError[]; code?: string }) | undefined;
  const base = { message: error.message, locations: error.locations, path: error.path };
  // mercurius wraps parse, validation and variable errors in one error carrying them all.
  if (original?.errors && Array.isArray(original.errors)) {
    return original.errors.map((inner) => ({
      message: inner.message,
      locations: inner.locations,
      extensions: { code: /^Variable "\$/.test(inner.message) ? 'BAD_USER_INPUT' : 'GRAPHQL_VALIDATION_FAILED' },
    }));
  }
  if (original instanceof AppError) {
    const extensions: Record<string, unknown> = { code: graphqlCode(original.code) };
    if (original.userErrors.length) extensions.userErrors = original.userErrors;
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

function errorFormatter(execution: ExecutionResult & { statusCode?: number }, context: any) {
  const errors = (execution.errors ?? []).flatMap((error) => formatOne(error as GraphQLError, context));
  const validation = !execution.data && errors.some((e) => e.extensions.code === 'GRAPHQL_VALIDATION_FAILED' || e.extensions.code === 'BAD_USER_INPUT');
  return {
    statusCode: execution.data ? 200 : validation ? 400 : (execution.statusCode ?? 200),
    response: { data: execution.data ?? null, errors },
  };
}

export type GraphQLPluginOptions = {
  resolvers: IResolvers<any, GraphQLContext>[];
  buildContext: (request: FastifyRequest) => GraphQLContext;
  graphiql: boolean;
};

export async function registerGraphQL(app: FastifyInstance, options: GraphQLPluginOptions): Promise<void> {
  const schema = makeExecutableSchema<GraphQLContext>({
    typeDefs: loadSdl(),
    resolvers: [{ DateTime: DateTimeScalar, URL: URLScalar, JSON: JSONScalar }, ...options.resolvers],
    // Every field without a resolver must exist on its parent: a typo is a start-up failure.
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  await app.register(mercurius, {
    schema,
    path: '/graphql',
    graphiql: options.graphiql,
    // Compile a document to JavaScript from its second use; REST rows reuse a fixed set of documents.
    jit: 1,
    queryDepth: MAX_QUERY_DEPTH,
    context: (request) => options.buildContext(request),
    errorFormatter: errorFormatter as never,
  });
}
