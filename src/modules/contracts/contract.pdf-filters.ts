import { Readable } from 'node:stream';
import { constants, createInflateRaw } from 'node:zlib';

// The PDF filters pdf-lib decodes, as streaming stages that hand on their output in bounded chunks, so
// that a stream's decoded size is measured without holding it (pdf-lib's decoders keep all they decode).
// They follow pdf-lib's decoders (core/streams/*), quirks included where they change a size.

export type Stage = (source: AsyncIterable<Uint8Array>) => AsyncGenerator<Uint8Array>;

const CHUNK = 64 * 1024;
// The most one input byte adds at once (a run of RunLengthDecode), pushed before `full` is asked.
const SLACK = 128;

/** Collects bytes and hands them on in chunks of about CHUNK. */
class Output {
  private buffer = new Uint8Array(CHUNK + SLACK);
  private used = 0;

  push(byte: number): void {
    this.buffer[this.used++] = byte;
  }

  get full(): boolean {
    return this.used >= CHUNK;
  }

  take(): Uint8Array {
    const chunk = this.buffer.subarray(0, this.used);
    this.buffer = new Uint8Array(CHUNK + SLACK);
    this.used = 0;
    return chunk;
  }
}

/** Drops the first `count` bytes: FlateDecode's zlib header, which readers check loosely or not at all. */
async function* skip(source: AsyncIterable<Uint8Array>, count: number): AsyncGenerator<Uint8Array> {
  let left = count;
  for await (const chunk of source) {
    if (left >= chunk.length) {
      left -= chunk.length;
      continue;
    }
    yield chunk.subarray(left);
    left = 0;
  }
}

async function* flate(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Z_SYNC_FLUSH: a truncated stream gives what it holds, as readers do, rather than an error. Piped, not
  // in a pipeline: what follows the data's end (its checksum, stray bytes) is then left unread, not an error.
  const inflater = createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: CHUNK });
  const input = Readable.from(skip(source, 2)).on('error', (err) => inflater.destroy(err));
  input.pipe(inflater);
  try {
    yield* inflater;
  } finally {
    input.destroy();
    inflater.destroy();
  }
}

const isHexDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

async function* asciiHex(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const out = new Output();
  let first = -1;
  for await (const chunk of source) {
    for (const c of chunk) {
      if (c === 0x3e /* > */) {
        if (first >= 0) out.push(first << 4);
        yield out.take();
        return;
      }
      if (!isHexDigit(c)) continue;
      const digit = c <= 0x39 ? c & 0x0f : (c & 0x0f) + 9;
      if (first < 0) first = digit;
      else {
        out.push((first << 4) | digit);
        first = -1;
      }
      if (out.full) yield out.take();
    }
  }
  yield out.take();
}

const isA85Space = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

async function* ascii85(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const out = new Output();
  const group = new Uint8Array(5);
  let count = 0;
  const flush = () => {
    // A partial group of n characters is n - 1 bytes, padded with 'u' to decode.
    const bytes = count - 1;
    for (let i = count; i < 5; i++) group[i] = 0x75;
    let t = 0;
    for (let i = 0; i < 5; i++) t = t * 85 + (group[i] - 0x21);
    for (let i = 0; i < bytes; i++) out.push((t >>> (24 - 8 * i)) & 0xff);
    count = 0;
  };
  for await (const chunk of source) {
    for (const c of chunk) {
      if (isA85Space(c)) continue;
      if (c === 0x7e /* ~ */) {
        if (count > 0) flush();
        yield out.take();
        return;
      }
      if (c === 0x7a /* z */ && count === 0) {
        for (let i = 0; i < 4; i++) out.push(0);
      } else {
        group[count++] = c;
        if (count === 5) flush();
      }
      if (out.full) yield out.take();
    }
  }
  if (count > 0) flush();
  yield out.take();
}

async function* runLength(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const out = new Output();
  // A run's header byte, then what follows it: `copy` literal bytes, or one byte to repeat `repeat` times.
  let header = -1;
  let copy = 0;
  for await (const chunk of source) {
    for (const c of chunk) {
      if (copy > 0) {
        out.push(c);
        copy--;
      } else if (header < 0) {
        if (c === 128) {
          yield out.take();
          return;
        }
        header = c;
        continue;
      } else if (header < 128) {
        out.push(c);
        copy = header;
        header = -1;
      } else {
        for (let i = 0; i < 257 - header; i++) out.push(c);
        header = -1;
      }
      if (out.full) yield out.take();
    }
  }
  // pdf-lib counts a literal run whole, its missing bytes as zeros.
  for (; copy > 0; copy--) out.push(0);
  yield out.take();
}

const LZW_TABLE = 4096;

async function* lzw(source: AsyncIterable<Uint8Array>, earlyChange: number): AsyncGenerator<Uint8Array> {
  const out = new Output();
  const values = new Uint8Array(LZW_TABLE);
  const lengths = new Uint16Array(LZW_TABLE);
  const previous = new Uint16Array(LZW_TABLE);
  for (let i = 0; i < 256; i++) {
    values[i] = i;
    lengths[i] = 1;
  }
  const sequence = new Uint8Array(LZW_TABLE);
  let length = 0;
  let nextCode = 258;
  let codeLength = 9;
  let prevCode = 0;
  let cached = 0;
  let bits = 0;
  for await (const chunk of source) {
    for (const c of chunk) {
      cached = ((cached << 8) | c) & 0xffffff;
      bits += 8;
      while (bits >= codeLength) {
        bits -= codeLength;
        const code = (cached >>> bits) & ((1 << codeLength) - 1);
        const hasPrev = length > 0;
        if (code < 256) {
          sequence[0] = code;
          length = 1;
        } else if (code >= 258) {
          if (code < nextCode) {
            length = lengths[code];
            for (let j = length - 1, q = code; j >= 0; j--) {
              sequence[j] = values[q];
              q = previous[q];
            }
          } else if (length < LZW_TABLE) {
            sequence[length++] = sequence[0];
          }
        } else if (code === 256) {
          codeLength = 9;
          nextCode = 258;
          length = 0;
          continue;
        } else {
          yield out.take();
          return;
        }
        if (hasPrev) {
          if (nextCode < LZW_TABLE) {
            previous[nextCode] = prevCode;
            lengths[nextCode] = Math.min(lengths[prevCode] + 1, LZW_TABLE);
            values[nextCode] = sequence[0];
          }
          nextCode++;
          const next = nextCode + earlyChange;
          if ((next & (next - 1)) === 0) codeLength = Math.min(Math.log2(next) + 1, 12);
        }
        prevCode = code;
        for (let j = 0; j < length; j++) {
          out.push(sequence[j]);
          if (out.full) yield out.take();
        }
      }
    }
  }
  yield out.take();
}

/** The stage decoding `filter`, or null for a filter pdf-lib does not decode (images' own codecs, Crypt). */
export function decodingStage(filter: string, earlyChange: number): Stage | null {
  switch (filter) {
    case 'FlateDecode':
      return flate;
    case 'LZWDecode':
      return (source) => lzw(source, earlyChange);
    case 'ASCII85Decode':
      return ascii85;
    case 'ASCIIHexDecode':
      return asciiHex;
    case 'RunLengthDecode':
      return runLength;
    default:
      return null;
  }
}
