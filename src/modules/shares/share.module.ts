import type { ModuleDescriptor } from '../../kernel/module';
import { jobKinds } from '../schedule/schedule.jobs';
import { Migration20261126000001_shares } from './Migration20261126000001_shares';
import { SHARE_SIGN_IN_ENTITIES, Share, ShareDownload, ShareFile, ShareRecipient } from './share.entities';
import { shareJobs } from './share.jobs';
import { shareLoaders } from './share.loaders';
import { shareResolvers } from './share.resolvers';
import { shareRestRows } from './share.rest';
import { shareRoutes } from './share.routes';
import { getShare, getShareDownload } from './share.service';

export const sharesModule: ModuleDescriptor = {
  name: 'shares',
  entities: [Share, ShareRecipient, ShareFile, ShareDownload, ...SHARE_SIGN_IN_ENTITIES],
  migrations: [{ name: 'Migration20261126000001_shares', class: Migration20261126000001_shares }],
  loaders: shareLoaders,
  resolvers: shareResolvers,
  restRows: shareRestRows,
  nodes: {
    Share: { sql: 'select 1 from share where id = ? and organization_id = ?', load: getShare },
    ShareDownload: {
      sql: 'select 1 from share_download d join share s on s.id = d.share_id where d.id = ? and s.organization_id = ?',
      load: getShareDownload,
    },
  },
  contributes: [jobKinds.contribute(shareJobs)],
  // The recipient's side: the share's page and its API under /s/{token}.
  routes: shareRoutes,
};
