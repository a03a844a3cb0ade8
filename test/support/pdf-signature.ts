import { createHash, verify } from 'node:crypto';
import forge from 'node-forge';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFName, PDFRawStream, type PDFPage } from 'pdf-lib';

// What pdfsig checks, in JavaScript, so that `npm test` needs nothing but Node: the last signature's
// PKCS#7 (from /Contents) signs the bytes /ByteRange names. Independent of the signing code on purpose:
// it reads the bytes and the ASN.1 the way a validator does, not through @signpdf.

const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

export type SignatureCheck = {
  valid: boolean;
  /** Why it is not valid. */
  problem?: string;
  /** The signer certificate's subject, `CN=…, O=…`. */
  signer?: string;
  /** SHA-256 (hex) of the signer certificate's DER. */
  certificateSha256?: string;
  /** Whether the byte ranges cover the whole file but the /Contents hex string. */
  coversWholeFile?: boolean;
};

function lastByteRange(pdf: Buffer): [number, number, number, number] | null {
  const matches = [...pdf.toString('latin1').matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  const last = matches.at(-1);
  return last ? [Number(last[1]), Number(last[2]), Number(last[3]), Number(last[4])] : null;
}

const toBuffer = (bytes: string) => Buffer.from(bytes, 'binary');

/**
 * Verifies the last digital signature of a PDF: the message digest, then the RSA signature over the signed attributes.
 */
export function verifyPdfSignature(pdf: Buffer): SignatureCheck {
  const range = lastByteRange(pdf);
  if (!range) return { valid: false, problem: 'no /ByteRange' };
  const [start1, length1, start2, length2] = range;
  const hex = pdf.subarray(start1 + length1, start2).toString('latin1');
  if (!/^<[0-9A-Fa-f]*>$/.test(hex)) return { valid: false, problem: 'the gap between the ranges is not a hex string' };
  const signed = Buffer.concat([pdf.subarray(start1, start1 + length1), pdf.subarray(start2, start2 + length2)]);
  const coversWholeFile = start1 === 0 && start2 + length2 === pdf.length;

  // The hex string is padded with zeros after the DER; the DER says its own length.
  const der = forge.util.hexToBytes(hex.slice(1, -1));
  let p7: forge.pkcs7.PkcsSignedData & { rawCapture: { signerInfos: forge.asn1.Asn1[] } };
  try {
    p7 = forge.pkcs7.messageFromAsn1(
      forge.asn1.fromDer(der, { parseAllBytes: false } as unknown as boolean),
    ) as typeof p7;
  } catch (err) {
    return {
      valid: false,
      problem: `the /Contents is not a PKCS#7 signed data: ${(err as Error).message}`,
      coversWholeFile,
    };
  }
  const [signerInfo] = p7.rawCapture.signerInfos;
  const parts = signerInfo.value as forge.asn1.Asn1[];
  const attributes = parts.find((part) => part.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && part.type === 0);
  if (!attributes) return { valid: false, problem: 'no signed attributes', coversWholeFile };
  const digestAlgorithm = forge.asn1.derToOid((parts[2].value as forge.asn1.Asn1[])[0].value as string);
  if (digestAlgorithm !== OID_SHA256)
    return { valid: false, problem: `digest algorithm ${digestAlgorithm}, not SHA-256`, coversWholeFile };
  const signature = parts[parts.indexOf(attributes) + 2].value as string;

  let messageDigest: string | null = null;
  for (const attribute of attributes.value as forge.asn1.Asn1[]) {
    const [oid, values] = attribute.value as forge.asn1.Asn1[];
    if (forge.asn1.derToOid(oid.value as string) === OID_MESSAGE_DIGEST)
      messageDigest = (values.value as forge.asn1.Asn1[])[0].value as string;
  }
  if (messageDigest === null) return { valid: false, problem: 'no messageDigest attribute', coversWholeFile };
  if (toBuffer(messageDigest).toString('hex') !== createHash('sha256').update(signed).digest('hex')) {
    return { valid: false, problem: 'the messageDigest is not the SHA-256 of the signed byte ranges', coversWholeFile };
  }

  // The signature covers the attributes DER-encoded as a SET OF, not with their [0] IMPLICIT tag.
  const set = forge.asn1.create(
    forge.asn1.Class.UNIVERSAL,
    forge.asn1.Type.SET,
    true,
    attributes.value as forge.asn1.Asn1[],
  );
  const signedAttributes = toBuffer(forge.asn1.toDer(set).getBytes());
  const certificate = p7.certificates[0];
  if (!certificate) return { valid: false, problem: 'no certificate in the PKCS#7', coversWholeFile };
  const certificatePem = forge.pki.certificateToPem(certificate);
  const signer = certificate.subject.attributes
    .map(
      (a) =>
        `${a.shortName}=${(a.valueTagClass as unknown) === forge.asn1.Type.UTF8 ? forge.util.decodeUtf8(String(a.value)) : a.value}`,
    )
    .join(', ');
  const certificateSha256 = createHash('sha256')
    .update(toBuffer(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes()))
    .digest('hex');
  if (!verify('sha256', signedAttributes, certificatePem, toBuffer(signature))) {
    return {
      valid: false,
      problem: 'the RSA signature over the signed attributes does not verify with the embedded certificate',
      signer,
      certificateSha256,
      coversWholeFile,
    };
  }
  return { valid: true, signer, certificateSha256, coversWholeFile };
}

/** The text a page draws (pdf-lib writes each line as a hex string shown by Tj), one line per string. */
export function pageText(page: PDFPage): string {
  const contents = page.node.Contents();
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((ref) => page.doc.context.lookup(ref)) : [contents];
  const source = streams
    .filter((stream): stream is PDFRawStream => stream instanceof PDFRawStream)
    .map((stream) => Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1'))
    .join('\n');
  return [...source.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)]
    .map((match) => Buffer.from(match[1], 'hex').toString('latin1'))
    .join('\n');
}

/** The images a page shows (the `Do` of an image XObject). */
export function pageImageCount(page: PDFPage): number {
  const xObjects = page.node.Resources()?.lookup(PDFName.of('XObject'));
  return xObjects ? (xObjects as unknown as { keys(): unknown[] }).keys().length : 0;
}

/** Each page's text, in order. */
export async function pagesText(pdf: Buffer): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  return doc.getPages().map(pageText);
}
