import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { portableSegment, uniqueNames } from '../files/file.names';
import type { StoredFile } from '../files/file.entities';
import { openFile } from '../files/file.service';
import type { ItemDocuments } from './document.service';

/**
 * Where each document goes in a folder tree (the zip, a copy in cloud storage): a folder per item,
 * `<item>/<file>`, both single safe segments (no `..`, no separators), unique per folder.
 */
export function documentPaths(items: ItemDocuments[]): { name: string; file: StoredFile }[] {
  const folderName = uniqueNames();
  return items.flatMap(({ item, documents }) => {
    const folder = folderName(portableSegment(item.name, 'item'));
    const entryName = uniqueNames();
    return documents.map(({ file }) => ({ name: `${folder}/${entryName(portableSegment(file.name, 'file'))}`, file }));
  });
}

/**
 * A zip of documents, a folder per item, written while it is sent: each document's bytes are opened
 * only when its turn comes, so neither memory nor open files grow with the number of documents.
 */
export function zipDocuments(ctx: Pick<GraphQLContext, 'storage' | 'log'>, items: ItemDocuments[]): Readable {
  const zip = new ZipFile();
  for (const { name, file } of documentPaths(items)) {
    // Stored, not deflated: documents are mostly PDFs and images, which do not compress.
    zip.addReadStreamLazy(name, { size: file.size, compress: file.mimeType.startsWith('text/'), mtime: file.createdAt }, (done) => {
      openFile(ctx, file).then((stream) => done(null, stream), (err: unknown) => done(err, undefined as never));
    });
  }
  zip.end();
  // Once the first bytes are sent the status cannot change: a failure can only cut the download short.
  zip.on('error', (err: Error) => {
    ctx.log.error({ err }, 'zip of documents failed while being sent');
    (zip.outputStream as Readable).destroy(err);
  });
  return zip.outputStream as Readable;
}
