import multipart from '@fastify/multipart';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { finished, PassThrough, type Readable } from 'node:stream';
import { AppError } from '../errors/app-error';
import { tooLarge } from '../storage/storage';

/** A file arriving in a request body, not read yet. */
export type IncomingFile = {
  stream: Readable;
  /** The name the client gave, if any (not yet made safe). */
  name: string | null;
  /** The type the client claimed; recorded, never trusted. */
  claimedType: string | null;
};

/**
 * Prepares a scope of routes whose bodies are files: multipart bodies are parsed as a stream
 * (`request.file()`), anything else is left unread for the handler. The JSON parser and its body
 * limit stay with every other route.
 */
export async function acceptFileBodies(scope: FastifyInstance): Promise<void> {
  scope.removeAllContentTypeParsers();
  await scope.register(multipart);
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
}

/**
 * A stream of the request's bytes that can be destroyed (when a limit is hit) without destroying the
 * connection, so the client still gets its 413; a client that goes away destroys it with an error.
 */
function detach(source: Readable): Readable {
  const body = new PassThrough();
  source.pipe(body);
  finished(source, (err) => {
    if (err) body.destroy(err);
  });
  return body;
}

function nameFromDisposition(header: string | undefined): string | null {
  if (!header) return null;
  try {
    return contentDisposition.parse(header).parameters.filename ?? null;
  } catch {
    // A malformed header gives no name; the file gets a default one.
    return null;
  }
}

/**
 * The uploaded file of a request: the multipart part named `file`, or, when `raw` is allowed, the
 * whole body (named by `name`, else by its Content-Disposition header).
 */
export async function receiveFile(
  request: FastifyRequest,
  options: { raw: boolean; maxBytes: number; name?: string },
): Promise<IncomingFile> {
  if (request.isMultipart()) {
    // The storage meter enforces the size limit, the same way for both kinds of body.
    const part = await request.file({
      limits: { fileSize: Infinity, files: 1, parts: 20, fields: 10, fieldSize: 64 * 1024 },
    });
    if (!part || part.fieldname !== 'file') {
      part?.file.resume();
      throw AppError.validation([
        {
          field: ['file'],
          message: 'Field required: send the file in the multipart part named "file"',
          code: 'REQUIRED',
        },
      ]);
    }
    return { stream: part.file, name: part.filename || null, claimedType: part.mimetype || null };
  }
  if (!options.raw)
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data, in the part named "file"');
  if (Number(request.headers['content-length']) > options.maxBytes) throw tooLarge(options.maxBytes);
  return {
    stream: detach(request.raw),
    name: options.name ?? nameFromDisposition(request.headers['content-disposition']),
    claimedType: request.headers['content-type'] ?? null,
  };
}

export type OutgoingFile = {
  stream: Readable;
  name: string;
  /** Unknown for bytes made while they are sent (a zip). */
  size?: number;
  /** `application/octet-stream` unless given. */
  type?: string;
  /** Shown in the browser rather than saved (a preview). */
  inline?: boolean;
};

/** Sends bytes as a file, under a safely encoded name, never sniffed into another type by a browser. */
export function sendFile(reply: FastifyReply, file: OutgoingFile): FastifyReply {
  if (file.size !== undefined) reply.header('content-length', file.size);
  return reply
    .code(200)
    .header('content-type', file.type ?? 'application/octet-stream')
    .header('content-disposition', contentDisposition(file.name, { type: file.inline ? 'inline' : 'attachment' }))
    .header('x-content-type-options', 'nosniff')
    .send(file.stream);
}
