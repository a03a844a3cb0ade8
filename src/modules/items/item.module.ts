import type { ModuleDescriptor } from '../../kernel/module';
import { RequestItem } from './item.entities';
import { itemLoaders } from './item.loaders';
import { itemResolvers, itemTypeName } from './item.resolvers';
import { itemRestRows, reviewRestRows } from './item.rest';
import { requestItemsPart } from './item.request-creation';
import { requestItemsRestPart } from './item.rest-shapes';
import { requestCreationParts } from '../requests/request.creation';
import { requestRestParts } from '../requests/request.rest-parts';
import { requestViewParts } from '../requests/request.view';
import { itemSubjectView, requestItemsView } from './item.view';
import { getItem, getItemSubject } from './item.service';

export const itemsModule: ModuleDescriptor = {
  name: 'items',
  entities: [RequestItem],
  loaders: itemLoaders,
  resolvers: itemResolvers,
  restRows: () => [...itemRestRows, ...reviewRestRows()],
  nodes: {
    RequestItem: {
      sql: 'select 1 from request_item i join request r on r.id = i.request_id where i.id = ? and r.organization_id = ? and i.deleted_at is null',
      load: getItem,
      typeName: itemTypeName,
    },
  },
  subjects: { RequestItem: { eventType: 'ItemEvent', field: 'item', view: itemSubjectView, load: getItemSubject } },
  contributes: [
    requestCreationParts.contribute(requestItemsPart),
    requestRestParts.contribute(requestItemsRestPart),
    requestViewParts.contribute(requestItemsView),
  ],
};
