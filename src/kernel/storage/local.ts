import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkKey, Meter, MissingObjectError, type Storage } from './storage';

/**
 * Objects as files under `root`, in 256 folders by the key's first two characters. Bytes are written
 * to `root/tmp` and renamed into place once complete (a rename within one file system is atomic), so
 * a reader never sees half an object and a failed upload leaves only a temporary file, removed at once.
 */
export function createLocalStorage(root: string): Storage {
  const tmp = join(root, 'tmp');
  const pathOf = (key: string) => join(root, checkKey(key).slice(0, 2), key);

  return {
    description: `local files in ${root}`,
    async put(key, source: Readable, { maxBytes }) {
      const target = pathOf(key);
      await mkdir(tmp, { recursive: true });
      const partial = join(tmp, `${randomUUID()}.part`);
      const meter = new Meter(maxBytes);
      try {
        await pipeline(source, meter, createWriteStream(partial, { flags: 'wx' }));
        await mkdir(join(target, '..'), { recursive: true });
        await rename(partial, target);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return meter.result();
    },
    async get(key) {
      // Opened here so a missing object fails this call rather than the stream later.
      const handle = await open(pathOf(key), 'r').catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? new MissingObjectError(key, err) : err;
      });
      // The default 64 KiB reads: each read is a buffer of its own, dead once sent (see
      // freeStreamedBuffersYoung in kernel/runtime.ts for when V8 frees them).
      return handle.createReadStream();
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async exists(key) {
      try {
        await access(pathOf(key));
        return true;
      } catch {
        return false;
      }
    },
  };
}
