import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { MAX_ZIP_SEGMENT } from '../files/file.limits';
import { portableSegment, uniqueNames } from '../files/file.names';
import { openFile } from '../files/file.service';
import { formCsv, formJson } from '../forms/form.export';
import type { ItemDocuments } from './document.service';

/**
 * A zip of documents, a folder per item (with the item's filled form as `<form>.json` and `<form>.csv`), written while it is sent: each document's bytes are opened
 * only when its turn comes, so neither memory nor open files grow with the number of documents.
 * Entry names are single safe segments (no `..`, no separators, no absolute paths), unique per folder.
 */
export function zipDocuments(ctx: Pick<GraphQLContext, 'storage' | 'log'>, items: ItemDocuments[]): Readable {
  const zip = new ZipFile();
  const folderName = uniqueNames();
  for (const { item, documents } of items) {
    const folder = folderName(portableSegment(item.name, 'item'));
    const entryName = uniqueNames();
    if (item.form && item.formAnswers) {
      const filled = { item: { id: item.id, name: item.name }, form: item.form, answers: item.formAnswers };
      const base = portableSegment(item.form.name, 'form', MAX_ZIP_SEGMENT - '.json'.length);
      zip.addBuffer(Buffer.from(formJson(filled)), `${folder}/${entryName(`${base}.json`)}`, { mtime: item.updatedAt });
      zip.addBuffer(Buffer.from(formCsv(filled)), `${folder}/${entryName(`${base}.csv`)}`, { mtime: item.updatedAt });
    }
    for (const { file } of documents) {
      const name = `${folder}/${entryName(portableSegment(file.name, 'file'))}`;
      // Stored, not deflated: documents are mostly PDFs and images, which do not compress.
      zip.addReadStreamLazy(name, { size: file.size, compress: file.mimeType.startsWith('text/'), mtime: file.createdAt }, (done) => {
        openFile(ctx, file).then((stream) => done(null, stream), (err: unknown) => done(err, undefined as never));
      });
    }
  }
  zip.end();
  // Once the first bytes are sent the status cannot change: a failure can only cut the download short.
  zip.on('error', (err: Error) => {
    ctx.log.error({ err }, 'zip of documents failed while being sent');
    (zip.outputStream as Readable).destroy(err);
  });
  return zip.outputStream as Readable;
}
