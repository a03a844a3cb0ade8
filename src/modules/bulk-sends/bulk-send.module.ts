import type { ModuleDescriptor } from '../../kernel/module';
import { BulkSend } from './bulk-send.entities';
import { bulkSendLoaders } from './bulk-send.loaders';
import { bulkSendResolvers } from './bulk-send.resolvers';
import { bulkSendRestRows } from './bulk-send.rest';
import { bulkSendView, getBulkSend } from './bulk-send.service';
import { Migration20261204000000_bulk_sends } from './Migration20261204000000_bulk_sends';

export const bulkSendsModule: ModuleDescriptor = {
  name: 'bulk sends',
  entities: [BulkSend],
  migrations: [{ name: 'Migration20261204000000_bulk_sends', class: Migration20261204000000_bulk_sends }],
  loaders: bulkSendLoaders,
  resolvers: bulkSendResolvers,
  restRows: bulkSendRestRows,
  // Its events reach subscribers only (event.topics.ts, SUBSCRIPTION_ONLY_TOPICS): no `Event` type streams them.
  subjects: { BulkSend: { view: bulkSendView, load: (ctx, event) => getBulkSend(ctx, event.subjectId) } },
  nodes: { BulkSend: { sql: 'select 1 from bulk_send where id = ? and organization_id = ?', load: getBulkSend } },
};
