import type { ItemPart } from '../items/item.parts';
import { Document } from './document.entities';

/** An item's documents go with it. */
export const itemDocumentsPart: ItemPart = {
  async removeWith(tx, item) {
    const documents = await tx.find(Document, { item: item.id });
    for (const document of documents) tx.remove(document);
    return documents.map((document) => document.file.id);
  },
};
