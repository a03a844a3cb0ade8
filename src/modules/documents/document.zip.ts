import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { MAX_ZIP_SEGMENT } from '../files/file.limits';
import { portableSegment, uniqueNames } from '../files/file.names';
import type { StoredFileRow } from '../files/file.entities';
import { openFile } from '../files/file.service';
import { formCsv, formJson } from '../forms/form.export';
import { answersCsv, answersJson, type AnswerRow } from './document.answers';
import type { ItemDocuments } from './document.service';

/** One entry of a request's folder tree: a stored document, or an item's filled form as JSON or CSV. */
export type FolderEntry =
  { name: string; file: StoredFileRow } | { name: string; bytes: Buffer; mimeType: string; mtime: Date };

/**
 * Where each document goes in a folder tree (the zip, a copy in cloud storage): a folder per item,
 * `<item>/<file>`, with the item's filled form beside its files as `<form>.json` and `<form>.csv`;
 * names are single safe segments (no `..`, no separators), unique per folder.
 */
export function documentPaths(items: ItemDocuments[], rootFiles: readonly string[] = []): FolderEntry[] {
  const folderName = uniqueNames();
  // A folder named like a file beside it could not be unpacked.
  rootFiles.forEach(folderName);
  return items.flatMap(({ item, documents }): FolderEntry[] => {
    const folder = folderName(portableSegment(item.name, 'item'));
    const entryName = uniqueNames();
    const forms: FolderEntry[] = [];
    if (item.form && item.formAnswers) {
      const filled = { item: { id: item.id, name: item.name }, form: item.form, answers: item.formAnswers };
      const base = portableSegment(item.form.name, 'form', MAX_ZIP_SEGMENT - '.json'.length);
      forms.push(
        {
          name: `${folder}/${entryName(`${base}.json`)}`,
          bytes: Buffer.from(formJson(filled)),
          mimeType: 'application/json',
          mtime: item.updatedAt,
        },
        {
          name: `${folder}/${entryName(`${base}.csv`)}`,
          bytes: Buffer.from(formCsv(filled)),
          mimeType: 'text/csv; charset=utf-8',
          mtime: item.updatedAt,
        },
      );
    }
    return [
      ...forms,
      ...documents.map(({ file, name }) => ({ name: `${folder}/${entryName(portableSegment(name, 'file'))}`, file })),
    ];
  });
}

/**
 * A zip of a request's answers (answers.json, answers.csv) and folder tree (documentPaths), written
 * while it is sent: each document's bytes are opened only when its turn comes, so neither memory nor
 * open files grow with the number of documents.
 */
export function zipDocuments(
  ctx: Pick<GraphQLContext, 'storage' | 'log'>,
  items: ItemDocuments[],
  answers: readonly AnswerRow[],
): Readable {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(answersJson(answers)), 'answers.json');
  zip.addBuffer(Buffer.from(answersCsv(answers)), 'answers.csv');
  for (const entry of documentPaths(items, ['answers.json', 'answers.csv'])) {
    if (!('file' in entry)) {
      zip.addBuffer(entry.bytes, entry.name, { mtime: entry.mtime });
      continue;
    }
    const { name, file } = entry;
    // Stored, not deflated: documents are mostly PDFs and images, which do not compress.
    zip.addReadStreamLazy(
      name,
      { size: file.size, compress: file.mimeType.startsWith('text/'), mtime: file.createdAt },
      (done) => {
        openFile(ctx, file).then(
          (stream) => done(null, stream),
          (err: unknown) => done(err, undefined as never),
        );
      },
    );
  }
  zip.end();
  // Once the first bytes are sent the status cannot change: a failure can only cut the download short.
  zip.on('error', (err: Error) => {
    ctx.log.error({ err }, 'zip of documents failed while being sent');
    (zip.outputStream as Readable).destroy(err);
  });
  return zip.outputStream as Readable;
}
