import type { ModuleDescriptor } from '../../kernel/module';
import { Contact, Recipient } from './recipient.entities';
import { recipientLoaders } from './recipient.loaders';
import { recipientResolvers } from './recipient.resolvers';
import { recipientRestRows } from './recipient.rest';
import { getContact, getRecipient } from './recipient.service';
import { requestRecipientsPart } from './recipient.request-creation';
import { requestRecipientsRestPart } from './recipient.rest-shapes';
import { requestCreationParts } from '../requests/request.creation';
import { requestRestParts } from '../requests/request.rest-parts';
import { requestSearchParts } from '../requests/request.search';
import { requestViewParts } from '../requests/request.view';
import { requestRecipientsView } from './recipient.view';
import { recipientSearch } from './recipient.search';

export const recipientsModule: ModuleDescriptor = {
  name: 'recipients',
  entities: [Contact, Recipient],
  loaders: recipientLoaders,
  resolvers: recipientResolvers,
  restRows: recipientRestRows,
  nodes: {
    Contact: { sql: 'select 1 from contact where id = ? and organization_id = ?', load: getContact },
    Recipient: {
      sql: 'select 1 from recipient p join request r on r.id = p.request_id where p.id = ? and r.organization_id = ?',
      load: getRecipient,
    },
  },
  contributes: [
    requestCreationParts.contribute(requestRecipientsPart),
    requestRestParts.contribute(requestRecipientsRestPart),
    requestViewParts.contribute(requestRecipientsView),
    requestSearchParts.contribute(recipientSearch),
  ],
};
