import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, graphqlCode } from '../errors/app-error';
import { MissingObjectError } from '../storage/storage';
import type { GraphQLContext } from './context';
import { parserLimitExtensions } from './query-limits';

// How GraphQL errors leave, over HTTP and WebSocket alike: each with an `extensions.code`; a bug
// logged in full and masked for the client.

export type FormattedError = GraphQLFormattedError & { extensions: Record<string, unknown> };

/** What a masked error needs of its operation: where to log it, and the id the client quotes. */
export type FormatContext = Partial<Pick<GraphQLContext, 'log' | 'requestId'>>;

export type ErrorFormat = {
  /** The errors of a document refused before it ran: parse, validation, limits, variables. */
  document(errors: readonly GraphQLError[]): FormattedError[];
  /** The errors of an execution (mercurius wraps a refused document's errors in one of them). */
  execution(errors: readonly GraphQLError[], context: FormatContext): FormattedError[];
};

/**
 * `suggestions`: whether graphql-js's "Did you mean …?" stays in messages. It names the schema's
 * fields, arguments and values to whoever guesses near them, so it goes where introspection is off.
 */
export function errorFormat({ suggestions }: { suggestions: boolean }): ErrorFormat {
  const text = (message: string) => (suggestions ? message : message.replace(/ Did you mean .+\?$/, ''));
  const document = (errors: readonly GraphQLError[]): FormattedError[] =>
    errors.map((error) => ({
      message: text(error.message),
      locations: error.locations,
      extensions: (error.extensions?.code ? error.extensions : parserLimitExtensions(error)) ?? {
        code: /^Variable "\$/.test(error.message) ? 'BAD_USER_INPUT' : 'GRAPHQL_VALIDATION_FAILED',
      },
    }));
  const one = (error: GraphQLError, context: FormatContext): FormattedError[] => {
    const original = error.originalError as (Error & { errors?: GraphQLError[] }) | undefined;
    const base = { message: error.message, locations: error.locations, path: error.path };
    if (original?.errors && Array.isArray(original.errors)) return document(original.errors);
    if (original instanceof AppError) {
      // Answered as gone, but the service lost it (or does not reach it): someone must look.
      if (original instanceof MissingObjectError)
        context.log?.error({ err: original, key: original.key, path: error.path }, 'a stored file is missing');
      const extensions: Record<string, unknown> = { code: graphqlCode(original.code) };
      if (original.userErrors.length) extensions.userErrors = original.userErrors;
      if (original.retryAfterSeconds !== undefined) extensions.retryAfter = original.retryAfterSeconds;
      return [{ ...base, extensions }];
    }
    // Scalar parsing and argument coercion: graphql-js errors with no cause, or a GraphQLError cause.
    if (!original || original instanceof GraphQLError) {
      return [{ ...base, message: text(error.message), extensions: { code: 'BAD_USER_INPUT' } }];
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
  };
  return { document, execution: (errors, context) => errors.flatMap((error) => one(error, context)) };
}
