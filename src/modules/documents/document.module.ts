import type { ModuleDescriptor } from '../../kernel/module';
import { Document } from './document.entities';
import { documentLoaders } from './document.loaders';
import { documentResolvers } from './document.resolvers';
import { documentRestRows } from './document.rest';
import { documentView } from './document.view';
import { getDocument, getDocumentSubject } from './document.service';
import { itemDocumentsPart } from './document.item-part';
import { itemParts } from '../items/item.parts';
import { Migration20261124000000_document_recipient } from './Migration20261124000000_document_recipient';

export const documentsModule: ModuleDescriptor = {
  name: 'documents',
  entities: [Document],
  migrations: [
    { name: 'Migration20261124000000_document_recipient', class: Migration20261124000000_document_recipient },
  ],
  loaders: documentLoaders,
  resolvers: documentResolvers,
  restRows: documentRestRows,
  nodes: {
    Document: {
      sql: 'select 1 from document d join request r on r.id = d.request_id where d.id = ? and r.organization_id = ?',
      load: getDocument,
    },
  },
  subjects: {
    Document: {
      eventType: 'DocumentEvent',
      field: 'document',
      view: (db, settings, id) => documentView(db, settings, id),
      load: getDocumentSubject,
    },
  },
  contributes: [itemParts.contribute(itemDocumentsPart)],
};
