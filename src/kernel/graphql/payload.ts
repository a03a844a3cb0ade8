import { AppError, type UserError } from '../errors/app-error';

/**
 * Runs a mutation and turns expected, user-fixable failures into `userErrors` (their paths made
 * relative to the mutation's arguments); every other error stays a top-level error. On failure the
 * payload's record fields are absent, which GraphQL answers as null.
 */
export async function payload<T extends Record<string, unknown>>(
  run: () => Promise<T>,
): Promise<Partial<T> & { userErrors: UserError[] }> {
  try {
    return { ...(await run()), userErrors: [] };
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION') {
      return { userErrors: err.userErrors.map((e) => ({ ...e, field: ['input', ...e.field] })) } as Partial<T> & {
        userErrors: UserError[];
      };
    }
    throw err;
  }
}
