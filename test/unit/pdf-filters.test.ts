import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { decodePDFRawStream, PDFContext, PDFRawStream } from 'pdf-lib';
import { decodingStage } from '../../src/modules/contracts/contract.pdf-filters';

// The streaming decoders that measure a PDF's streams must give what pdf-lib's own decoders give, whatever
// the bytes: a stream they measured short would reach pdf-lib unmeasured.

const context = PDFContext.create();

function byPdfLib(filter: string, bytes: Uint8Array): Uint8Array {
  return decodePDFRawStream(PDFRawStream.of(context.obj({ Filter: filter }), bytes)).decode();
}

async function byStage(filter: string, bytes: Uint8Array): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  // In pieces, as a stream arrives from the stage before it.
  const source = (async function* () {
    for (let at = 0; at < bytes.length; at += 7) yield bytes.subarray(at, at + 7);
  })();
  for await (const chunk of decodingStage(filter, 1)!(source)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('PDF decoding stages', () => {
  it.each(['ASCIIHexDecode', 'ASCII85Decode', 'RunLengthDecode'])(
    'should decode %s as pdf-lib does, whatever the bytes',
    async (filter) => {
      const alphabet =
        filter === 'RunLengthDecode' ? fc.integer({ min: 0, max: 255 }) : fc.integer({ min: 9, max: 126 });
      await fc.assert(
        fc.asyncProperty(fc.array(alphabet, { maxLength: 300 }), async (codes) => {
          const bytes = Uint8Array.from(codes);
          expect(Buffer.from(await byStage(filter, bytes))).toEqual(Buffer.from(byPdfLib(filter, bytes)));
        }),
      );
    },
  );

  it('should decode FlateDecode as pdf-lib does, and a truncated stream as far as it goes', async () => {
    const text = Buffer.from('BT /F1 12 Tf 72 712 Td (A contract) Tj ET\n'.repeat(500));
    const deflated = deflateSync(text);
    expect(Buffer.from(await byStage('FlateDecode', deflated))).toEqual(text);
    expect(Buffer.from(byPdfLib('FlateDecode', deflated))).toEqual(text);
    const truncated = await byStage('FlateDecode', deflated.subarray(0, deflated.length / 2));
    expect(truncated.length).toBeGreaterThan(0);
    expect(text.subarray(0, truncated.length).equals(truncated)).toBe(true);
  });

  it("should decode LZWDecode as pdf-lib does (the specification's example, and any bytes)", async () => {
    const example = Buffer.from('800b6050220c0c8501', 'hex');
    expect(Buffer.from(await byStage('LZWDecode', example)).toString()).toBe('-----A---B');
    expect(Buffer.from(byPdfLib('LZWDecode', example)).toString()).toBe('-----A---B');
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const ours = Buffer.from(await byStage('LZWDecode', bytes));
        const theirs = Buffer.from(byPdfLib('LZWDecode', bytes));
        // Without an end-of-data code, pdf-lib pads its last block of codes with up to 512 zeros.
        expect(theirs.subarray(0, ours.length)).toEqual(ours);
        expect(theirs.length - ours.length).toBeLessThanOrEqual(512);
        expect(theirs.subarray(ours.length).every((byte) => byte === 0)).toBe(true);
      }),
    );
  });

  it("should not decode what pdf-lib does not (images' codecs)", () => {
    expect(decodingStage('DCTDecode', 1)).toBeNull();
    expect(decodingStage('JBIG2Decode', 1)).toBeNull();
  });
});
