import type { ItemPart } from '../items/item.parts';

/** An item's documents go with it. */
export const itemDocumentsPart: ItemPart = {
  async removeWith(tx, item) {
    const removed = await tx.rows<{ file_id: string }>('delete from document where item_id = ? returning file_id', [
      item.id,
    ]);
    return removed.map((document) => document.file_id);
  },
};
