import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, getVariableValues } from 'graphql';
import { AppError, httpStatus, httpStatusOfGraphQLCode, type UserError } from '../errors/app-error';
import type { GraphQLContext } from '../graphql/context';
import { acceptFileBodies } from '../http/files';
import { sourceOf, type Variables } from './operations';
import type { ValidationEntry } from './validation';

export type RestInput = {
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
  /** The API revision the client asked for (header `API-Revision`), 2 unless it sent 1. */
  revision: 1 | 2;
};

export type RestResponse = { status?: number; body?: unknown; headers?: Record<string, string> };

type RowPath = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  summary: string;
  tags: string[];
  /** Status of a body that fails its schema; 422 unless the spec names another (PATCH /contracts: 400). */
  badBodyStatus?: 400;
  /** A JSON body limit above the app's, for a row whose body carries an image (a drawn signature). */
  bodyLimit?: number;
  schema: {
    params?: TSchema;
    querystring?: TSchema;
    body?: TSchema;
    response: Record<number, TSchema>;
  };
};

/**
 * A row that runs `operation` (a generated document) in-process and maps its result with `result`.
 * Its variables come from `variables`, or, where the body carries a file, from `receive`, which stores
 * the file (multipart, or raw bytes where the row allows), read as a stream, and answers the variables
 * with which `operation` reads back what was stored.
 */
export type OperationRow<TResult, TVariables extends Variables> = RowPath & {
  operation: TypedDocumentNode<TResult, TVariables>;
  /** The response; `ctx` is the operation's context (what its change rendered for its event, see committedRender). */
  result: (data: TResult, input: RestInput, ctx: GraphQLContext) => RestResponse;
} & (
    | { variables: (input: RestInput) => TVariables }
    | { receive: (ctx: GraphQLContext, input: RestInput, request: FastifyRequest) => Promise<TVariables> }
  );

/**
 * A row that moves bytes: it calls the domain services directly; a handler that sends the reply itself (a stream)
 * returns it.
 */
export type HandlerRow = RowPath & {
  handle: (
    ctx: GraphQLContext,
    input: RestInput,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<RestResponse | FastifyReply>;
};

/**
 * A row that calls its module's service directly (a write whose answer is the record's view, the
 * data of its event). Its input maps to the variables of `operation`, the GraphQL operation it
 * stands for, and is coerced by their types as GraphQL coerces them (scalars parsed, enums to their
 * values): the same input is taken, and refused, whichever door it comes in by.
 */
export type ServiceRow<TArgs> = RowPath & {
  operation: TypedDocumentNode<any, any>;
  variables: (input: RestInput) => Variables;
  call: (ctx: GraphQLContext, args: TArgs, input: RestInput) => Promise<RestResponse>;
};

export function serviceRow<TArgs>(row: ServiceRow<TArgs>): RestRow {
  const { operation, variables, call, ...path } = row;
  const definitions = getOperationAST(operation)?.variableDefinitions ?? [];
  return {
    ...path,
    handle: async (ctx, input, request) => {
      const coerced = getVariableValues(request.server.graphql.schema, definitions, variables(input));
      if (coerced.errors) {
        const userErrors = coerced.errors.map(
          (e) => coercionError(e.message) ?? { field: [], message: e.message, code: 'VALUE_ERROR' },
        );
        throw new RefusedInput(422, userErrors);
      }
      return call(ctx, coerced.coerced as TArgs, input);
    },
  };
}

/** An operation row once `restRow` has checked its document against its variables and result. */
type CheckedOperation = {
  /** The document's text, printed as the row is made rather than per call (see sourceOf). */
  source: string;
  upload: boolean;
  variables: (ctx: GraphQLContext, input: RestInput, request: FastifyRequest) => Promise<Variables> | Variables;
  result: (data: unknown, input: RestInput, ctx: GraphQLContext) => RestResponse;
};

/** One documented path. */
export type RestRow = RowPath & ({ operation: CheckedOperation } | Pick<HandlerRow, 'handle'>);

/** An operation row, whose variables and result are typed by its document. */
export function restRow<TResult, TVariables extends Variables>(row: OperationRow<TResult, TVariables>): RestRow {
  const { method, url, summary, tags, badBodyStatus, bodyLimit, schema, operation, result } = row;
  return {
    method,
    url,
    summary,
    tags,
    badBodyStatus,
    bodyLimit,
    schema,
    operation: {
      source: sourceOf(operation),
      upload: 'receive' in row,
      variables: 'receive' in row ? row.receive : (_ctx, input) => row.variables(input),
      // The data is what this document answered, so it has the document's result type.
      result: (data, input, ctx) => result(data as TResult, input, ctx),
    },
  };
}

/** A failure already in the REST contract's terms (status and `detail`). */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationEntry[],
  ) {
    super(typeof detail === 'string' ? detail : 'Validation error');
  }
}

const snake = (segment: string): string => segment.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A user error as GraphQL returns it. */
type UserErrorJson = { field: string[] | null; message: string; code: string };

type SchemaNode = {
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
};

/** The shapes a value of `node` may take: its union's branches (a nullable's included), or itself. */
const branches = (node: SchemaNode): SchemaNode[] => {
  const union = node.anyOf ?? node.oneOf;
  return union ? union.flatMap(branches) : [node];
};

/**
 * The schema of a map's values when `node` is a map whose keys are the client's own (metadata, a
 * form's fields): values described, no properties declared, as `Type.Record` or a schema-valued
 * `additionalProperties` give.
 */
function recordValues(node: SchemaNode): SchemaNode | undefined {
  if (node.properties && Object.keys(node.properties).length > 0) return undefined;
  const [pattern] = Object.values(node.patternProperties ?? {});
  if (pattern) return pattern;
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

/**
 * A GraphQL input path (`["items", "0", "dueDate"]`) as a 422 `loc` (`["items", 0, "due_date"]`),
 * walked alongside the body's JSON Schema: a key of a map the client names is quoted back as sent,
 * neither snake-cased nor read as a list index. Where the schema says nothing (a field GraphQL names
 * otherwise), segments are read as names and indexes.
 */
function locOf(path: string[], body: TSchema | undefined): (string | number)[] {
  let nodes: SchemaNode[] = body ? branches(body as SchemaNode) : [];
  return path.map((segment) => {
    const values = nodes.map(recordValues).filter((node) => node !== undefined);
    if (values.length > 0) {
      nodes = values.flatMap(branches);
      return segment;
    }
    if (/^\d+$/.test(segment)) {
      nodes = nodes.flatMap((node) => (node.items ? branches(node.items) : []));
      return Number(segment);
    }
    // The body's own spelling: snake_case, or camelCase where the body is (the share API).
    const name =
      !nodes.some((node) => node.properties?.[snake(segment)]) && nodes.some((node) => node.properties?.[segment])
        ? segment
        : snake(segment);
    nodes = nodes.flatMap((node) => {
      const property = node.properties?.[name];
      return property ? branches(property) : [];
    });
    return name;
  });
}

/**
 * GraphQL user errors (paths relative to the mutation's arguments, `input` left out) as 422 entries,
 * placed by the body schema of the row that sent the input.
 */
export function userErrorsToEntries(userErrors: UserErrorJson[], body?: TSchema): ValidationEntry[] {
  return userErrors.map((e) => {
    const field = e.field ?? [];
    const path = field[0] === 'input' ? field.slice(1) : field;
    return { loc: ['body', ...locOf(path, body)], msg: e.message, type: e.code.toLowerCase() };
  });
}

/**
 * User errors thrown where the row's body schema is not at hand (a row's `result`); the error
 * handler places them into a 422 (or the status the spec names) once it knows the route's schema.
 */
export class RefusedInput extends Error {
  constructor(
    readonly status: number,
    readonly userErrors: UserErrorJson[],
  ) {
    super('Validation error');
  }
}

/** The record of a mutation payload, or a 422 (or the status the spec names) carrying its user errors. */
export function fromPayload<P extends { userErrors: UserErrorJson[] }, K extends keyof P>(
  payload: P,
  key: K,
  status = 422,
): NonNullable<P[K]> {
  if (payload.userErrors.length > 0) throw new RefusedInput(status, payload.userErrors);
  return payload[key] as NonNullable<P[K]>;
}

/** The record, or the 404 the spec names for it (`"Request not found"`). */
export function found<T>(value: T | null | undefined, resource: string): T {
  if (value === null || value === undefined) throw new RestError(404, `${resource} not found`);
  return value;
}

/** What a GraphQL type takes, in the REST layer's words ("Input should be …"). */
const EXPECTED: Record<string, string> = {
  URL: 'an absolute http or https URL',
  DateTime: 'a valid datetime (ISO 8601)',
  Int: 'a valid integer',
  Float: 'a valid number',
  Boolean: 'a valid boolean',
  String: 'a valid string',
  ID: 'a valid id',
  JSON: 'valid JSON',
};

/**
 * A variable GraphQL refused (a value the row's JSON Schema let through but a scalar or enum does
 * not take) as a user error on the field the client sent: graphql-js names the variable, and the
 * place inside it as `at "input.endpoint"`. Its reason is kept when the scalar gave one; a bare
 * `Expected type URL.` (what the compiled executor says) reads as the REST layer's own message.
 */
export function coercionError(message: string): UserErrorJson | undefined {
  const match = /^Variable "\$(\w+)" got invalid value [\s\S]*?(?: at "([^"]+)")?; ([\s\S]*)$/.exec(message);
  if (!match) return undefined;
  const [, variable, at, reason] = match;
  const expected = /^Expected type "?(\w+)"?\.?$/.exec(reason)?.[1];
  return {
    field: at ? at.split('.') : [variable],
    message: expected ? `Input should be ${EXPECTED[expected] ?? `a valid ${expected}`}` : reason,
    code: 'VALUE_ERROR',
  };
}

type GraphQLErrorJson = {
  message: string;
  extensions?: { code?: string; userErrors?: UserError[]; requestId?: string };
};

/** A failed document of a row; its user errors are placed once the route's body schema is known. */
function failureOfGraphQL(error: GraphQLErrorJson): Error {
  const code = error.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
  const status = httpStatusOfGraphQLCode(code);
  if (status === 422) {
    const userErrors = error.extensions?.userErrors;
    if (userErrors?.length) return new RefusedInput(422, userErrors);
    const coercion = coercionError(error.message);
    return coercion
      ? new RefusedInput(422, [coercion])
      : new RestError(422, [{ loc: ['body'], msg: error.message, type: 'value_error' }]);
  }
  return new RestError(status, error.message);
}

function parseRevision(header: string | string[] | undefined): 1 | 2 {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '' || value === '2') return 2;
  if (value === '1') return 1;
  throw new RestError(422, [{ loc: ['header', 'API-Revision'], msg: "Input should be '1' or '2'", type: 'enum' }]);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** See RestRow.badBodyStatus. */
    badBodyStatus?: 400;
  }
}

/** Whether a row receives a file (its body is multipart or raw bytes, not JSON). */
export const isUploadRow = (row: RestRow): boolean => 'operation' in row && row.operation.upload;

export type RestEngineOptions = {
  buildContext: (request: FastifyRequest) => GraphQLContext;
  /**
   * Rows of the recipient API: the caller's scope authenticates a recipient's session (no API key),
   * and only such a session may call them.
   */
  recipient?: boolean;
};

/**
 * Registers each row as a Fastify route whose schemas validate its input and serialise its output.
 * Upload rows live in a scope of their own, whose body parsers stream files past the JSON body limit.
 */
export function registerRestRows(app: FastifyInstance, rows: RestRow[], options: RestEngineOptions): void {
  for (const row of rows.filter((r) => !isUploadRow(r))) registerRow(app, row, options);
  app.register(async (scope) => {
    await acceptFileBodies(scope);
    for (const row of rows.filter(isUploadRow)) registerRow(scope, row, options);
  });
}

function registerRow(app: FastifyInstance, row: RestRow, options: RestEngineOptions): void {
  app.route({
    method: row.method,
    url: row.url,
    schema: { summary: row.summary, tags: row.tags, ...row.schema },
    ...(row.bodyLimit ? { bodyLimit: row.bodyLimit } : {}),
    config: {
      badBodyStatus: row.badBodyStatus,
      public: options.recipient,
      // A file body streams past once, so only JSON bodies can be told apart by their content.
      idempotent: row.method === 'POST' && !isUploadRow(row),
      openapi: {
        recipient: options.recipient,
        upload: isUploadRow(row),
        download: 'handle' in row && row.method === 'GET',
      },
    },
    handler: async (request, reply) => {
      const revision = parseRevision(request.headers['api-revision']);
      reply.header('API-Revision', String(revision));
      const input: RestInput = {
        params: (request.params ?? {}) as Record<string, any>,
        query: (request.query ?? {}) as Record<string, any>,
        body: request.body,
        revision,
      };
      const ctx = options.buildContext(request);
      // API keys and recipient sessions each reach their own rows only.
      if ((ctx.viewer.actor.type === 'RECIPIENT') !== Boolean(options.recipient)) {
        throw AppError.forbidden(
          options.recipient
            ? 'Only a recipient session may call the recipient API'
            : 'A recipient session may call only the recipient API under /r/{token}/api',
        );
      }
      let response: RestResponse;
      if ('handle' in row) {
        const handled = await row.handle(ctx, input, request, reply);
        if ((handled as unknown) === reply || reply.sent) return reply;
        response = handled as RestResponse;
      } else {
        const variables = await row.operation.variables(ctx, input, request);
        const execution = (await ctx.execute(row.operation.source, ctx, variables)) as {
          data?: unknown;
          errors?: GraphQLErrorJson[];
        };
        if (execution.errors?.length) throw failureOfGraphQL(execution.errors[0]);
        response = row.operation.result(execution.data, input, ctx);
      }
      const status = response.status ?? 200;
      reply.code(status);
      if (response.headers) reply.headers(response.headers);
      return status === 204 ? reply.send() : reply.send(response.body);
    },
  });
}

/** The transport-neutral error of a service, in REST terms. */
export function restErrorFromAppError(error: AppError, body?: TSchema): RestError {
  if (error.code === 'VALIDATION' || error.code === 'BAD_USER_INPUT') {
    return new RestError(
      422,
      error.userErrors.length
        ? userErrorsToEntries(error.userErrors, body)
        : [{ loc: ['body'], msg: error.message, type: 'value_error' }],
    );
  }
  return new RestError(httpStatus(error.code), error.message);
}

type VariablesRefusal = Error & { code: 'MER_ERR_GQL_VALIDATION'; errors: Array<{ message: string }> };

const isVariablesRefusal = (error: unknown): error is VariablesRefusal =>
  error instanceof Error &&
  (error as { code?: unknown }).code === 'MER_ERR_GQL_VALIDATION' &&
  Array.isArray((error as { errors?: unknown }).errors);

/**
 * A row's failure in the REST contract's terms, its user errors placed by the body schema of its
 * route; undefined when the failure is not a row's (the HTTP layer's, or a bug).
 */
export function restErrorOf(error: unknown, body: TSchema | undefined): RestError | undefined {
  if (error instanceof RestError) return error;
  if (error instanceof RefusedInput) return new RestError(error.status, userErrorsToEntries(error.userErrors, body));
  if (error instanceof AppError) return restErrorFromAppError(error, body);
  if (isVariablesRefusal(error)) {
    const userErrors = error.errors.map(
      (e) => coercionError(e.message) ?? { field: [], message: e.message, code: 'VALUE_ERROR' },
    );
    return new RestError(422, userErrorsToEntries(userErrors, body));
  }
  return undefined;
}
