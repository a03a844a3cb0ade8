import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFObjectStreamParser,
  PDFRawStream,
  PDFRef,
  type PDFObject,
} from 'pdf-lib';
import { AppError, type UserErrorCode } from '../../kernel/errors/app-error';
import { decodingStage, type Stage } from './contract.pdf-filters';
import { MAX_CONTRACT_INFLATED_BYTES, MAX_CONTRACT_OBJECT_STREAM_BYTES, MAX_CONTRACT_OBJECTS } from './contract.limits';

// Runs in the PDF worker before pdf-lib reads a contract. A PDF of a megabyte may decode to gigabytes (a
// compressed-PDF bomb) or hold millions of objects: this counts the objects and decodes every stream
// without keeping it, and refuses the PDF at the first limit it passes.

class Refusal extends Error {
  constructor(
    readonly code: UserErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const mib = (bytes: number) => `${bytes / 2 ** 20} MiB`;
const OBJECT_STREAM = PDFName.of('ObjStm');
const XREF_STREAM = PDFName.of('XRef');
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWhite = (c: number) => c === 0 || c === 9 || c === 10 || c === 12 || c === 13 || c === 32;

/** Finds indirect object headers (`12 0 obj`) where pdf-lib's parser would: parts apart by whitespace or comments. */
class Headers {
  // The last comment skipped: a '%' inside it ends where it does, so long comments are walked once.
  private comment = { start: -1, end: -1 };

  constructor(private readonly bytes: Uint8Array) {}

  private digits(i: number): number {
    while (i < this.bytes.length && isDigit(this.bytes[i])) i++;
    return i;
  }

  private space(i: number): number {
    const { bytes } = this;
    while (i < bytes.length) {
      if (isWhite(bytes[i])) i++;
      else if (bytes[i] === 0x25) {
        if (i < this.comment.start || i >= this.comment.end) {
          let end = i;
          while (end < bytes.length && bytes[end] !== 10 && bytes[end] !== 13) end++;
          this.comment = { start: i, end };
        }
        i = this.comment.end;
      } else break;
    }
    return i;
  }

  /** The header starting at `i`: its reference and where its object starts; null when there is none. */
  at(i: number): { ref: PDFRef; end: number } | null {
    const { bytes } = this;
    if (!isDigit(bytes[i]) || (i > 0 && isDigit(bytes[i - 1]))) return null;
    const numberEnd = this.digits(i);
    const generationStart = this.space(numberEnd);
    if (generationStart === numberEnd) return null;
    const generationEnd = this.digits(generationStart);
    if (generationEnd === generationStart) return null;
    const keyword = this.space(generationEnd);
    if (bytes[keyword] !== 0x6f || bytes[keyword + 1] !== 0x62 || bytes[keyword + 2] !== 0x6a) return null;
    const text = (from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString();
    return {
      ref: PDFRef.of(Number(text(i, numberEnd)), Number(text(generationStart, generationEnd))),
      end: keyword + 3,
    };
  }
}

/** The decoding stages of a stream's filters, up to the first one pdf-lib does not decode. */
function stagesOf(stream: PDFRawStream): Stage[] {
  const { dict } = stream;
  const filter = dict.lookup(PDFName.of('Filter'));
  const parameters = dict.lookup(PDFName.of('DecodeParms'));
  const names: (PDFObject | undefined)[] =
    filter instanceof PDFArray ? filter.asArray().map((f) => dict.context.lookup(f)) : [filter];
  const stages: Stage[] = [];
  for (const [index, name] of names.entries()) {
    if (!(name instanceof PDFName)) break;
    const own =
      filter instanceof PDFArray ? (parameters instanceof PDFArray ? parameters.lookup(index) : undefined) : parameters;
    const earlyChange = own instanceof PDFDict ? own.lookup(PDFName.of('EarlyChange')) : undefined;
    const stage = decodingStage(name.decodeText(), earlyChange instanceof PDFNumber ? earlyChange.asNumber() : 1);
    if (!stage) break;
    stages.push(stage);
  }
  return stages;
}

/**
 * Decodes `stream` through its filters, every filter's output counted by `count` (which throws past a
 * limit) and dropped. Whether the data failed to decode; what it gave until then is counted.
 */
async function decode(stream: PDFRawStream, count: (bytes: number) => void): Promise<boolean> {
  const stages = stagesOf(stream);
  if (stages.length === 0) return true;
  const counted = async function* (source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) {
      count(chunk.length);
      yield chunk;
    }
  };
  let flow: AsyncIterable<Uint8Array> = (async function* () {
    yield stream.contents;
  })();
  for (const stage of stages) flow = counted(stage(flow));
  try {
    for await (const _ of flow);
    return true;
  } catch (err) {
    if (err instanceof Refusal) throw err;
    return false;
  }
}

async function measure(bytes: Uint8Array): Promise<void> {
  const context = PDFContext.create();
  const headers = new Headers(bytes);
  const streams: PDFRawStream[] = [];
  let objects = 0;
  const countObjects = (more: number) => {
    objects += more;
    if (objects > MAX_CONTRACT_OBJECTS)
      throw new Refusal('TOO_MANY', `The PDF holds more than ${MAX_CONTRACT_OBJECTS.toLocaleString('en-US')} objects`);
  };

  // The objects, as pdf-lib's parser finds them, in their order; a stream's data is not searched for more.
  for (let i = 0; i < bytes.length;) {
    const header = headers.at(i);
    if (!header) {
      i++;
      continue;
    }
    countObjects(1);
    let object: PDFObject;
    try {
      object = PDFObjectParser.forBytes(bytes.subarray(header.end), context).parseObject();
    } catch {
      i = header.end;
      continue;
    }
    context.assign(header.ref, object);
    streams.push(...(object instanceof PDFRawStream ? [object] : []));
    i = header.end + (object instanceof PDFRawStream ? object.contents.length : 0);
  }

  let inflated = 0;
  let structure = 0;
  const countInflated = (more: number) => {
    inflated += more;
    if (inflated > MAX_CONTRACT_INFLATED_BYTES)
      throw new Refusal('TOO_LONG', `The PDF's streams decode to more than ${mib(MAX_CONTRACT_INFLATED_BYTES)}`);
  };
  const countStructure = (more: number) => {
    structure += more;
    if (structure > MAX_CONTRACT_OBJECT_STREAM_BYTES) {
      throw new Refusal(
        'TOO_LONG',
        `The PDF's object and cross-reference streams decode to more than ${mib(MAX_CONTRACT_OBJECT_STREAM_BYTES)}`,
      );
    }
    countInflated(more);
  };
  // A stream's dictionary may name its filters through objects kept in object streams: those are then read
  // as pdf-lib reads them, in order; a PDF that does not (as good as every one) spares decoding them twice.
  const keys = ['Type', 'N', 'Filter', 'DecodeParms'].map((key) => PDFName.of(key));
  const unresolved = (value: PDFObject | undefined): boolean =>
    (value instanceof PDFRef && !context.lookup(value)) ||
    (value instanceof PDFArray && value.asArray().some(unresolved));
  const readObjectStreams = streams.some((stream) => keys.some((key) => unresolved(stream.dict.get(key))));
  for (const stream of streams) {
    const type = stream.dict.lookup(PDFName.of('Type'));
    if (type !== OBJECT_STREAM && type !== XREF_STREAM) {
      await decode(stream, countInflated);
      continue;
    }
    // pdf-lib decodes these whole to read the document. Its decoder goes on where zlib finds an error
    // (a distance too far back), so such data is refused rather than handed to it unmeasured.
    if (type === OBJECT_STREAM) {
      const count = stream.dict.lookup(PDFName.of('N'));
      countObjects(count instanceof PDFNumber ? count.asNumber() : 0);
    }
    if (!(await decode(stream, countStructure)))
      throw new Refusal('INVALID', 'An object or cross-reference stream of the PDF does not decode');
    if (type === OBJECT_STREAM && readObjectStreams)
      await PDFObjectStreamParser.forStream(stream)
        .parseIntoContext()
        .catch(() => undefined);
  }
}

/**
 * Refuses (a 422 naming `field`) a PDF with more than MAX_CONTRACT_OBJECTS objects, or whose streams decode
 * to more than MAX_CONTRACT_INFLATED_BYTES (MAX_CONTRACT_OBJECT_STREAM_BYTES for those pdf-lib decodes whole).
 */
export async function checkPdf(bytes: Uint8Array, field: string[]): Promise<void> {
  try {
    await measure(bytes);
  } catch (err) {
    if (err instanceof Refusal) throw AppError.validation([{ field, message: err.message, code: err.code }]);
    throw err;
  }
}
