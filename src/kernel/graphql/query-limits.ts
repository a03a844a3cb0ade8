import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLArmorCallbackConfiguration } from '@escape.tech/graphql-armor-types';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { MAX_QUERY_ALIASES, MAX_QUERY_COST, MAX_QUERY_DEPTH, MAX_QUERY_DIRECTIVES, MAX_QUERY_TOKENS } from '../limits';

// What a document may ask for before it runs: hostile documents (thousands of aliases, a cost that
// grows with every level) are refused at validation, each with a code a client can act on. Depth is
// mercurius's own check (`queryDepth`), tokens graphql-js's parser (`maxTokens`); both are coded here too.

/** Which limit a document broke: `extensions.limit` of a `QUERY_TOO_COMPLEX` error. */
export type QueryLimit = 'depth' | 'tokens' | 'aliases' | 'directives' | 'cost';

export const QUERY_LIMITS: Record<QueryLimit, number> = {
  depth: MAX_QUERY_DEPTH,
  tokens: MAX_QUERY_TOKENS,
  aliases: MAX_QUERY_ALIASES,
  directives: MAX_QUERY_DIRECTIVES,
  cost: MAX_QUERY_COST,
};

/** The error extensions of a broken limit. */
export const limitExtensions = (limit: QueryLimit) => ({ code: 'QUERY_TOO_COMPLEX', limit, max: QUERY_LIMITS[limit] });

/** graphql-js counts tokens as it parses and stops at the limit, before any document is built. */
export const PARSE_OPTIONS: ParseOptions = { maxTokens: MAX_QUERY_TOKENS };

/** A rule whose errors carry `extensions`: the same rule, reporting through a context that adds them. */
function withExtensions(rule: ValidationRule, extensions: Record<string, unknown>): ValidationRule {
  return (context) => {
    const coded = Object.create(context) as ValidationContext;
    coded.reportError = (error) =>
      context.reportError(
        new GraphQLError(error.message, { nodes: error.nodes, extensions: { ...error.extensions, ...extensions } }),
      );
    return rule(coded);
  };
}

/** graphql-armor's options that report a broken limit as a validation error (it throws by default). */
const reported = (limit: QueryLimit): GraphQLArmorCallbackConfiguration & { exposeLimits: boolean } => ({
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context, error) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: limitExtensions(limit) }),
      ),
  ],
});

/** The validation rules every document passes beyond graphql-js's own, over HTTP and WebSocket alike. */
export function queryLimitRules(options: { introspection: boolean }): ValidationRule[] {
  return [
    maxAliasesRule({ n: MAX_QUERY_ALIASES, ...reported('aliases') }),
    maxDirectivesRule({ n: MAX_QUERY_DIRECTIVES, ...reported('directives') }),
    // Fragments counted where they are spread: a fragment used twice costs twice.
    costLimitRule({ maxCost: MAX_QUERY_COST, flattenFragments: true, ...reported('cost') }),
    ...(options.introspection
      ? []
      : [withExtensions(NoSchemaIntrospectionCustomRule, { code: 'INTROSPECTION_DISABLED' })]),
  ];
}

/**
 * The extensions of an error the parser or mercurius's depth check raised for a limit: they come
 * without a code of their own (graphql-js names the token limit only in its message).
 */
export function parserLimitExtensions(error: Error & { code?: string }): Record<string, unknown> | undefined {
  if (error.code === 'MER_ERR_GQL_QUERY_DEPTH') return limitExtensions('depth');
  if (error.message === `Syntax Error: Document contains more that ${MAX_QUERY_TOKENS} tokens. Parsing aborted.`)
    return limitExtensions('tokens');
  return undefined;
}
