import { PDFDocument } from 'pdf-lib';
import { ZipFile } from 'yazl';
import type { FastifyInstance } from 'fastify';
import { client } from './app';

/** A real one-page PDF (A4). */
export async function pdfBytes(text = 'Contract'): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText(text, { x: 50, y: 780 });
  return Buffer.from(await pdf.save());
}

/** A minimal DOCX: a zip whose [Content_Types].xml declares a Word main document. */
export function docxBytes(): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '[Content_Types].xml',
  );
  zip.addBuffer(
    Buffer.from(
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>',
    ),
    'word/document.xml',
  );
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

/** The start of an OLE compound file, the container of Word 97-2003 documents. */
export function docBytes(): Buffer {
  const header = Buffer.alloc(4096);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  return header;
}

/** A 1×1 PNG (a logo). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** A multipart/form-data body with one file part (named `file` unless told). */
export function multipart(
  content: Buffer | string,
  options: { filename?: string; type?: string; field?: string } = {},
) {
  const boundary = `----gather${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'file'}"; filename="${options.filename ?? 'file.bin'}"\r\nContent-Type: ${options.type ?? 'application/octet-stream'}\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** POSTs a file as multipart to `url` with the given key. */
export function upload(
  app: FastifyInstance,
  apiKey: string,
  url: string,
  content: Buffer | string,
  options: Parameters<typeof multipart>[1] = {},
) {
  const { payload, headers } = multipart(content, options);
  return client(app, apiKey).post(url, payload, headers);
}

/** Uploads a PDF contract and returns its body (fails the test on anything but 200). */
export async function createContract(app: FastifyInstance, apiKey: string, name = 'Engagement letter.pdf') {
  const response = await upload(app, apiKey, '/contracts', await pdfBytes(), {
    filename: name,
    type: 'application/pdf',
  });
  if (response.statusCode !== 200) throw new Error(`POST /contracts answered ${response.statusCode}: ${response.body}`);
  return response.json() as { id: string; document: { id: string; name: string; mime: string } };
}
