import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the loopback vendor received: its path, headers and form fields. */
export type SentToTwilio = { method: string; path: string; headers: IncomingHttpHeaders; form: Record<string, string> };

/** How the loopback vendor answers one request. */
export type TwilioAnswer =
  /** `before`: what happens before the answer leaves (a status callback that overtakes it). */
  | { kind: 'created'; before?: (sid: string, form: Record<string, string>) => Promise<unknown> }
  | { kind: 'invalid'; code: number; message: string }
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  | { kind: 'server-error' };

/**
 * A real HTTP server on loopback that answers as Twilio's Messages API documents
 * (https://www.twilio.com/docs/messaging/api/message-resource, https://www.twilio.com/docs/usage/twilios-response):
 * `201` with the message resource, `400` with `{code, message, more_info, status}`, `429` with `Retry-After`, `500`.
 * It records every request; `answer` decides each answer from the form (by default `201`).
 */
export async function startTwilio() {
  const received: SentToTwilio[] = [];
  let answer: (form: Record<string, string>) => TwilioAnswer = () => ({ kind: 'created' });
  const error = (status: number, code: number, message: string) => ({
    code,
    message,
    more_info: `https://www.twilio.com/docs/errors/${code}`,
    status,
  });
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', async () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push({ method: request.method!, path: request.url!, headers: request.headers, form });
      const accountSid = /\/Accounts\/([^/]+)\//.exec(request.url!)?.[1] ?? '';
      const reply = (status: number, json: unknown, headers: Record<string, string> = {}) =>
        response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(json));
      const decided = answer(form);
      switch (decided.kind) {
        case 'created': {
          const sid = `SM${randomBytes(16).toString('hex')}`;
          await decided.before?.(sid, form);
          const now = new Date().toUTCString();
          return reply(201, {
            account_sid: accountSid,
            api_version: '2010-04-01',
            body: form.Body,
            date_created: now,
            date_sent: null,
            date_updated: now,
            direction: 'outbound-api',
            error_code: null,
            error_message: null,
            from: form.From ?? null,
            messaging_service_sid: form.MessagingServiceSid ?? null,
            num_media: '0',
            num_segments: '1',
            price: null,
            price_unit: 'USD',
            sid,
            status: form.MessagingServiceSid ? 'accepted' : 'queued',
            to: form.To,
            uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`,
          });
        }
        case 'invalid':
          return reply(400, error(400, decided.code, decided.message));
        case 'rate-limited':
          return reply(429, error(429, 20429, 'Too Many Requests'), {
            'retry-after': String(decided.retryAfterSeconds),
          });
        case 'server-error':
          return reply(500, error(500, 20500, 'Internal Server Error'));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    /** The API's base URL (TWILIO_API_URL). */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    /** Decides the answers from now on. */
    answerWith(decide: typeof answer) {
      answer = decide;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
