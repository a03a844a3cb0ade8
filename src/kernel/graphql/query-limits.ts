import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLArmorCallbackConfiguration } from '@escape.tech/graphql-armor-types';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  TokenKind,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { MAX_QUERY_COST, MAX_QUERY_DEPTH, MAX_QUERY_DIRECTIVES, MAX_QUERY_TOKENS } from '../limits';

// What a document may ask for before it runs: hostile documents (thousands of aliases, a cost that
// grows with every level) are refused at validation, each with a code a client can act on, over HTTP and
// WebSocket alike. Tokens are graphql-js's parser's count (`maxTokens`), coded here too. A batch's
// operations run together, so they are measured together too (`batchExcess`).

/** Which limit a document broke: `extensions.limit` of a `QUERY_TOO_COMPLEX` error. */
export type QueryLimit = 'depth' | 'tokens' | 'aliases' | 'directives' | 'cost';

/** The limits a deployment chooses (configuration); the others are constants. */
export type QueryLimitSettings = {
  /** Whether `__schema` and `__type` may be asked for. */
  introspection: boolean;
  /** Aliases per operation, or per batch. */
  maxAliases: number;
};

/** The error extensions of a broken limit. */
export const limitExtensions = (limit: QueryLimit, max: number) => ({ code: 'QUERY_TOO_COMPLEX', limit, max });

/** graphql-js counts tokens as it parses and stops at the limit, before any document is built. */
export const PARSE_OPTIONS: ParseOptions = { maxTokens: MAX_QUERY_TOKENS };

/** graphql-js names the token limit only in its message. */
const isTokenLimit = (error: Error) => /^Syntax Error: Document contains more that \d+ tokens\./.test(error.message);

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
const reported = (limit: QueryLimit, max: number): GraphQLArmorCallbackConfiguration & { exposeLimits: boolean } => ({
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context, error) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: limitExtensions(limit, max) }),
      ),
  ],
});

/** The validation rules every document passes beyond graphql-js's own, over HTTP and WebSocket alike. */
export function queryLimitRules(settings: QueryLimitSettings): ValidationRule[] {
  return [
    // Fragments are no level of their own: what they select is.
    maxDepthRule({ n: MAX_QUERY_DEPTH, flattenFragments: true, ...reported('depth', MAX_QUERY_DEPTH) }),
    maxAliasesRule({ n: settings.maxAliases, ...reported('aliases', settings.maxAliases) }),
    maxDirectivesRule({ n: MAX_QUERY_DIRECTIVES, ...reported('directives', MAX_QUERY_DIRECTIVES) }),
    // Fragments counted where they are spread: a fragment used twice costs twice.
    costLimitRule({ maxCost: MAX_QUERY_COST, flattenFragments: true, ...reported('cost', MAX_QUERY_COST) }),
    ...(settings.introspection
      ? []
      : [withExtensions(NoSchemaIntrospectionCustomRule, { code: 'INTROSPECTION_DISABLED' })]),
  ];
}

/** The extensions of the parser's error for the token limit: it comes without a code of its own. */
export const parserLimitExtensions = (error: Error): Record<string, unknown> | undefined =>
  isTokenLimit(error) ? limitExtensions('tokens', MAX_QUERY_TOKENS) : undefined;

/** One operation of a batch: its document and the operation of it that runs. */
export type BatchOperation = { query: string; operationName?: string | null };

/** The document of `operation` alone (with every fragment), so that what it holds is its own. */
const alone = (document: DocumentNode, operation: ReturnType<typeof getOperationAST>): DocumentNode => ({
  ...document,
  definitions: document.definitions.filter((d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation),
});

/**
 * The refusal of a batch whose operations together hold more tokens, aliases or cost than one
 * operation may (the limits count a request's work, whether it comes as one operation or ten);
 * undefined within them. An operation that does not parse, or names no operation of its document, is
 * left to mercurius, which refuses it on its own. Each document is parsed only as far as the tokens
 * the batch has left.
 */
export function batchExcess(
  schema: GraphQLSchema,
  operations: BatchOperation[],
  maxAliases: number,
): { message: string; extensions: ReturnType<typeof limitExtensions> } | undefined {
  const found = { tokens: 0, aliases: 0, cost: 0 };
  // graphql-armor's own counts (its `onAccept` reports them), with no limit of their own.
  const measures: ValidationRule[] = [
    maxAliasesRule({ n: Infinity, onAccept: [(_context, { n }) => (found.aliases += n)] }),
    costLimitRule({ maxCost: Infinity, flattenFragments: true, onAccept: [(_context, { n }) => (found.cost += n)] }),
  ];
  const excess = (limit: QueryLimit, max: number) => ({
    message: `The operations of this batch together exceed the ${limit} limit of ${max}`,
    extensions: limitExtensions(limit, max),
  });
  for (const { query, operationName } of operations) {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_QUERY_TOKENS - found.tokens });
    } catch (err) {
      if (err instanceof GraphQLError && isTokenLimit(err)) return excess('tokens', MAX_QUERY_TOKENS);
      continue;
    }
    // The parser's tokens: each but the start, the end and comments.
    for (let token = document.loc!.startToken.next; token && token.kind !== TokenKind.EOF; token = token.next)
      if (token.kind !== TokenKind.COMMENT) found.tokens++;
    const operation = getOperationAST(document, operationName);
    if (!operation) continue;
    validate(schema, alone(document, operation), measures);
    if (found.aliases > maxAliases) return excess('aliases', maxAliases);
    if (found.cost > MAX_QUERY_COST) return excess('cost', MAX_QUERY_COST);
  }
  return undefined;
}
