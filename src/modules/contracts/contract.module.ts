import type { ModuleDescriptor } from '../../kernel/module';
import { findEventRequest } from '../requests/request.access';
import { Contract } from './contract.entities';
import { contractLoaders } from './contract.loaders';
import { stopPdfWorkers } from './contract.pdf';
import { contractResolvers } from './contract.resolvers';
import { contractRestRows } from './contract.rest';
import { contractView } from './contract.view';
import { getContract } from './contract.service';

export const contractsModule: ModuleDescriptor = {
  name: 'contracts',
  entities: [Contract],
  loaders: contractLoaders,
  resolvers: contractResolvers,
  restRows: contractRestRows,
  nodes: { Contract: { sql: 'select 1 from contract where id = ? and organization_id = ?', load: getContract } },
  // A contract belongs to the organization; its events (a signature) happen on a request the
  // subscriber must see, which the event names.
  subjects: {
    Contract: {
      eventType: 'ContractEvent',
      field: 'contract',
      view: (db, settings, id) => contractView(db, settings, id),
      load: async (ctx, event) => ((await findEventRequest(ctx, event)) ? getContract(ctx, event.subjectId) : null),
    },
  },
  stop: stopPdfWorkers,
};
