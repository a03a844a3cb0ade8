import type { Tx } from '../../kernel/db/db';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { RequestItemInput } from '../../generated/resolvers-types';
import { extensionPoint } from '../../kernel/module';
import type { InputCheck } from '../../kernel/validation/input-check';
import type { RequestRow } from '../requests/request.entities';
import type { RequestItemRow } from './item.entities';

/** A write made once a new item is stored. */
export type ItemWrite = (tx: Tx, request: RequestRow, item: RequestItemRow) => Promise<void>;

/**
 * What a module adds to the creation and deletion of an item (its attachments, its documents). Items
 * ask through this point, so that they import none of the modules above them.
 */
export type ItemPart = {
  /**
   * Reads and checks a new item's input before the transaction (problems go to `check`); what it writes once the item
   * is stored.
   */
  prepareCreate?(
    ctx: Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>,
    check: InputCheck,
    input: RequestItemInput,
  ): Promise<ItemWrite>;
  /** Removes this module's rows of an item being deleted; the ids of the stored files they used. */
  removeWith?(tx: Tx, item: RequestItemRow): Promise<string[]>;
};

export const itemParts = extensionPoint<ItemPart>('item creation and deletion');
