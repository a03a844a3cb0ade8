// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type { ShareDownloadRow, ShareRecipientRow, ShareRow } from './share.entities';
import type { ShareFileView } from './share.service';

export type ShareMapper = ShareRow;
export type ShareRecipientMapper = ShareRecipientRow;
export type ShareFileMapper = ShareFileView;
export type ShareDownloadMapper = ShareDownloadRow;
