import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

export type RestResponse = { status?: number; body?: unknown };

type RowPath = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  summary: string;
  tags: string[];
  /** Status of a body that fails its schema; 422 unless the spec names another (PATCH /contracts: 400). */
  badBodyStatus?: 400;
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
  result: (data: TResult, input: RestInput) => RestResponse;
} & (
    | { variables: (input: RestInput) => TVariables }
    | { receive: (ctx: GraphQLContext, input: RestInput, request: FastifyRequest) => Promise<TVariables> }
  );

/** A row that moves bytes: it calls the domain services directly; a handler that sends the reply itself (a stream) returns it. */
export type HandlerRow = RowPath & {
  handle: (ctx: GraphQLContext, input: RestInput, request: FastifyRequest, reply: FastifyReply) => Promise<RestResponse | FastifyReply>;
};

/** An operation row once `restRow` has checked its document against its variables and result. */
type CheckedOperation = {
  /** The document's text, printed as the row is made rather than per call (see sourceOf). */
  source: string;
  upload: boolean;
  variables: (ctx: GraphQLContext, input: RestInput, request: FastifyRequest) => Promise<Variables> | Variables;
  result: (data: unknown, input: RestInput) => RestResponse;
};

/** One documented path. */
export type RestRow = RowPath & ({ operation: CheckedOperation } | Pick<HandlerRow, 'handle'>);

/** An operation row, whose variables and result are typed by its document. */
export function restRow<TResult, TVariables extends Variables>(row: OperationRow<TResult, TVariables>): RestRow {
  const { method, url, summary, tags, badBodyStatus, schema, operation, result } = row;
  return {
    method,
    url,
    summary,
    tags,
    badBodyStatus,
    schema,
    operation: {
      source: sourceOf(operation),
      upload: 'receive' in row,
      variables: 'receive' in row ? row.receive : (_ctx, input) => row.variables(input),
      // The data is what this document answered, so it has the document's result type.
      result: (data, input) => result(data as TResult, input),
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

// Fields whose keys are the client's own (metadata keys, a form's field names): the segment after them
// is quoted back as sent, neither snake-cased nor read as a list index. (A contract's `fields` is a list.)
const isFreeForm = (path: string[], index: number) => path[index] === 'userMetadata' || (path[index] === 'fields' && path[index - 1] === 'form');

/** A GraphQL user-error path (`["input", "dueDate"]`) as a 422 `loc` (`["body", "due_date"]`). */
export function userErrorsToEntries(userErrors: UserErrorJson[]): ValidationEntry[] {
  return userErrors.map((e) => {
    const field = e.field ?? [];
    const path = field[0] === 'input' ? field.slice(1) : field;
    const loc = path.map((segment, index) =>
      index > 0 && isFreeForm(path, index - 1) ? segment : /^\d+$/.test(segment) ? Number(segment) : snake(segment),
    );
    return { loc: ['body', ...loc], msg: e.message, type: e.code.toLowerCase() };
  });
}

/** The record of a mutation payload, or a 422 (or the status the spec names) carrying its user errors. */
export function fromPayload<P extends { userErrors: UserErrorJson[] }, K extends keyof P>(payload: P, key: K, status = 422): NonNullable<P[K]> {
  if (payload.userErrors.length > 0) throw new RestError(status, userErrorsToEntries(payload.userErrors));
  return payload[key] as NonNullable<P[K]>;
}

/** The record, or the 404 the spec names for it (`"Request not found"`). */
export function found<T>(value: T | null | undefined, resource: string): T {
  if (value === null || value === undefined) throw new RestError(404, `${resource} not found`);
  return value;
}

type GraphQLErrorJson = { message: string; extensions?: { code?: string; userErrors?: UserError[]; requestId?: string } };

function restErrorFromGraphQL(error: GraphQLErrorJson): RestError {
  const code = error.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
  const status = httpStatusOfGraphQLCode(code);
  if (status === 422) {
    const userErrors = error.extensions?.userErrors;
    return new RestError(422, userErrors?.length ? userErrorsToEntries(userErrors) : [{ loc: ['body'], msg: error.message, type: 'value_error' }]);
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
    config: { badBodyStatus: row.badBodyStatus },
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
      let response: RestResponse;
      if ('handle' in row) {
        const handled = await row.handle(ctx, input, request, reply);
        if ((handled as unknown) === reply) return reply;
        response = handled as RestResponse;
      } else {
        const variables = await row.operation.variables(ctx, input, request);
        const execution = (await app.graphql(row.operation.source, ctx as never, variables)) as { data?: unknown; errors?: GraphQLErrorJson[] };
        if (execution.errors?.length) throw restErrorFromGraphQL(execution.errors[0]);
        response = row.operation.result(execution.data, input);
      }
      const status = response.status ?? 200;
      reply.code(status);
      return status === 204 ? reply.send() : reply.send(response.body);
    },
  });
}

/** The transport-neutral error of a service, in REST terms. */
export function restErrorFromAppError(error: AppError): RestError {
  if (error.code === 'VALIDATION' || error.code === 'BAD_USER_INPUT') {
    return new RestError(422, error.userErrors.length ? userErrorsToEntries(error.userErrors) : [{ loc: ['body'], msg: error.message, type: 'value_error' }]);
  }
  return new RestError(httpStatus(error.code), error.message);
}
