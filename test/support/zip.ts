import { fromBuffer, type Entry } from 'yauzl';

/** The entries of a zip and their contents. */
export function unzip(buffer: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const entries: Record<string, string> = {};
      zip.on('entry', (entry: Entry) => {
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          const chunks: Buffer[] = [];
          stream
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => {
              entries[entry.fileName] = Buffer.concat(chunks).toString();
              zip.readEntry();
            });
        });
      });
      zip.on('end', () => resolve(entries)).on('error', reject);
      zip.readEntry();
    });
  });
}
