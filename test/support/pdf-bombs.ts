import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { pdfBytes } from './files';

// Compressed-PDF bombs, built in a few milliseconds: small files whose streams decode to far more than they
// weigh. A deflate stream is assembled from one compressed megabyte of spaces repeated (each copy ends on a
// byte boundary, and refers back only within itself), so no gigabyte is ever held to make one.

const MiB = 2 ** 20;

/** Adler-32 of `head` followed by `count` spaces, in closed form. */
function adler32(head: Buffer, count: number): number {
  const MOD = 65521n;
  let a = 1n;
  let b = 0n;
  for (const byte of head) {
    a = (a + BigInt(byte)) % MOD;
    b = (b + a) % MOD;
  }
  const n = BigInt(count);
  const space = 32n;
  return Number((((b + n * a + (space * n * (n + 1n)) / 2n) % MOD) << 16n) | ((a + space * n) % MOD));
}

/** A zlib stream of `head` then `inflated` bytes of spaces (rounded up to a MiB), about a thousandth its size. */
export function deflatedSpaces(head: string, inflated: number): Buffer {
  const flush = { finishFlush: constants.Z_SYNC_FLUSH, level: 9 };
  const megabyte = deflateRawSync(Buffer.alloc(MiB, ' '), flush);
  const copies = Math.ceil(inflated / MiB);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(Buffer.from(head, 'latin1'), copies * MiB));
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    deflateRawSync(Buffer.from(head, 'latin1'), flush),
    ...Array<Buffer>(copies).fill(megabyte),
    // The last block, empty, then the checksum.
    Buffer.from([0x03, 0x00]),
    checksum,
  ]);
}

/** A one-page PDF with `objects` appended (an incremental update's objects, which pdf-lib reads too). */
async function withObjects(objects: Buffer[]): Promise<Buffer> {
  return Buffer.concat([await pdfBytes('A contract with more in it'), ...objects]);
}

function streamObject(number: number, dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`\n${number} 0 obj\n<< ${dictionary} /Length ${data.length} >>\nstream\n`),
    data,
    Buffer.from('\nendstream\nendobj\n'),
  ]);
}

/** A PDF whose object stream (one `null`, then spaces) inflates to `inflated` bytes: pdf-lib decodes it to read the PDF. */
export function objectStreamBomb(inflated: number): Promise<Buffer> {
  const head = '901 0 ';
  const data = deflatedSpaces(`${head}null`, inflated);
  return withObjects([streamObject(900, `/Type /ObjStm /N 1 /First ${head.length} /Filter /FlateDecode`, data)]);
}

/**
 * objectStreamBomb, whose filter is named by an object kept in another object stream: found only by reading
 * that one first, as pdf-lib does.
 */
export function indirectFilterBomb(inflated: number): Promise<Buffer> {
  const names = Buffer.from('950 0 /FlateDecode');
  const head = '901 0 ';
  const data = deflatedSpaces(`${head}null`, inflated);
  return withObjects([
    streamObject(899, '/Type /ObjStm /N 1 /First 6', names),
    streamObject(900, `/Type /ObjStm /N 1 /First ${head.length} /Filter 950 0 R`, data),
  ]);
}

/**
 * A PDF with a stream compressed twice ([/FlateDecode /FlateDecode]) that inflates to `inflated` bytes: a
 * file of a few kilobytes.
 */
export function contentStreamBomb(inflated: number): Promise<Buffer> {
  const data = deflateSync(deflatedSpaces('', inflated), { level: 9 });
  return withObjects([streamObject(900, '/Filter [/FlateDecode /FlateDecode]', data)]);
}

/** A PDF with `count` more objects, each a `null`. */
export function manyObjects(count: number): Promise<Buffer> {
  const objects = Array.from({ length: count }, (_, i) => `${1000 + i} 0 obj null endobj\n`).join('');
  return withObjects([Buffer.from(objects)]);
}
