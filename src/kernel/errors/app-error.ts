/**
 * Error codes a service may throw. Each maps to one GraphQL `extensions.code` and one HTTP status
 * in the tables below; an unmapped code does not compile.
 */
export type AppErrorCode =
  /** Missing, or outside what the caller may see (another organization's record included). */
  | 'NOT_FOUND'
  /** User-fixable input problems; mutations return them as `userErrors`, REST as 422. */
  | 'VALIDATION'
  /** Input that cannot be coerced or breaks a limit before any rule runs. */
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  /** Visible to the caller, but its role may not do this. */
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  /** Existed, and is no more to be used (a recipient's link to a closed or expired request). */
  | 'GONE'
  /** An upload beyond its size limit. */
  | 'PAYLOAD_TOO_LARGE'
  /** An upload whose content (as detected, not as claimed) is not a type the operation accepts. */
  | 'UNSUPPORTED_MEDIA_TYPE';

export type UserErrorCode =
  | 'REQUIRED'
  | 'INVALID'
  | 'TOO_LONG'
  | 'TOO_SHORT'
  | 'TOO_MANY'
  | 'OUT_OF_RANGE'
  | 'NOT_FOUND'
  | 'TAKEN'
  | 'INVALID_STATE';

export type UserError = {
  /** Path of the offending input field, relative to the mutation's input (`['items', '0', 'name']`). */
  field: string[];
  message: string;
  code: UserErrorCode;
};

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly userErrors: UserError[];
  /** For RATE_LIMITED: when to try again (REST `Retry-After`, GraphQL `extensions.retryAfter`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: AppErrorCode,
    message: string,
    options: { userErrors?: UserError[]; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.userErrors = options.userErrors ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static rateLimited(message: string, retryAfterMs: number): AppError {
    return new AppError('RATE_LIMITED', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
  }

  static notFound(resource: string): AppError {
    return new AppError('NOT_FOUND', `${resource} not found`);
  }

  static validation(userErrors: UserError[]): AppError {
    return new AppError('VALIDATION', userErrors.map((e) => e.message).join('; '), { userErrors });
  }

  static forbidden(message = 'Your role may not do this'): AppError {
    return new AppError('FORBIDDEN', message);
  }

  /**
   * The record's state does not allow the operation. A user error rather than a code of its own, so
   * that it travels as every refused input does: REST `422` with `type: "invalid_state"`, GraphQL a
   * `userErrors` entry with the code `INVALID_STATE` (or that entry under `BAD_USER_INPUT`).
   */
  static invalidState(message: string): AppError {
    return AppError.validation([{ field: [], message, code: 'INVALID_STATE' }]);
  }
}

export function assertUnreachable(value: never): never {
  throw new Error(`unhandled case ${String(value)}`);
}

// Typed as an AppErrorCode so that every GraphQL code has its HTTP status (httpStatusOfGraphQLCode).
export function graphqlCode(code: AppErrorCode): AppErrorCode {
  switch (code) {
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    case 'VALIDATION':
    case 'BAD_USER_INPUT':
      return 'BAD_USER_INPUT';
    case 'UNAUTHENTICATED':
      return 'UNAUTHENTICATED';
    case 'FORBIDDEN':
      return 'FORBIDDEN';
    case 'CONFLICT':
      return 'CONFLICT';
    case 'RATE_LIMITED':
      return 'RATE_LIMITED';
    case 'GONE':
      return 'GONE';
    // Bytes move over REST only; should a GraphQL operation ever meet these, the input was at fault.
    case 'PAYLOAD_TOO_LARGE':
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'BAD_USER_INPUT';
    default:
      return assertUnreachable(code);
  }
}

/** The HTTP status of each code; a code left out does not compile. */
const HTTP_STATUS: Record<AppErrorCode, number> = {
  NOT_FOUND: 404,
  VALIDATION: 422,
  BAD_USER_INPUT: 422,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

export const httpStatus = (code: AppErrorCode): number => HTTP_STATUS[code];

/**
 * The HTTP status of a GraphQL `extensions.code`, for REST rows whose document failed: the codes
 * graphqlCode gives keep their status; GraphQL's own (`GRAPHQL_VALIDATION_FAILED`) and
 * `INTERNAL_SERVER_ERROR` mean the row or the service is at fault, a 500.
 */
export const httpStatusOfGraphQLCode = (code: string): number =>
  Object.hasOwn(HTTP_STATUS, code) ? HTTP_STATUS[code as AppErrorCode] : 500;
