import type { RequestUpdateInput } from '../../generated/resolvers-types';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { Tx } from '../../kernel/db/db';
import { extensionPoint } from '../../kernel/module';
import type { InputCheck } from '../../kernel/validation/input-check';
import type { RequestRow } from './request.entities';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

/** Writes what a part's field changes, once every check passed; answers whether anything changed. */
export type RequestUpdateWrite = (tx: Tx) => Promise<boolean>;

/**
 * A field of `requestUpdate` that a module above requests keeps in its own records (the escalation rules). Requests
 * ask through this point, so that they import none of the modules above them.
 */
export type RequestUpdatePart = {
  /** The input field it changes: named in the event's `updated` when its write changed something. */
  field: keyof RequestUpdateInput;
  /**
   * Checks the field in the update's transaction, the request locked (problems go to `check`); answers its write, or
   * null when the input leaves the field alone.
   */
  prepare(
    ctx: Ctx,
    tx: Tx,
    check: InputCheck,
    input: RequestUpdateInput,
    request: RequestRow,
  ): Promise<RequestUpdateWrite | null>;
};

export const requestUpdateParts = extensionPoint<RequestUpdatePart>('request update');
