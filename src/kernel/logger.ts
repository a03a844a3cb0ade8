import pino, { type DestinationStream, type Logger } from 'pino';

const SECRET_HEADERS = ['authorization', '"x-api-key"', 'cookie'];

/**
 * The process's logger. Secrets stay out of it: request lines carry the route pattern, not the URL
 * (observeRequests), and the headers that hold keys and session tokens are redacted wherever a
 * library logs them (@fastify/multipart logs the request's headers at trace level).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const paths = SECRET_HEADERS.flatMap((header) => [
    `headers.${header}`,
    `*.headers.${header}`,
    `*.*.headers.${header}`,
  ]);
  return pino({ level, redact: { paths, censor: '[redacted]' } }, destination);
}
