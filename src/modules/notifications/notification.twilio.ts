import { createHmac } from 'node:crypto';
import { sameSecret } from '../../kernel/crypto/same-secret';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TwilioSettings } from '../../config/config';
import type { Db } from '../../kernel/db/db';
import type { Clock } from '../../kernel/clock';
import { DetailBody, NoContent, Uuid, withErrors } from '../../kernel/rest/schemas';
import { HandoverRefused, type SmsProvider } from './notification.channels';
import { MAX_NOTIFICATION_ERROR, MAX_RETRY_AFTER_MS, NOTIFICATION_SEND_TIMEOUT_MS } from './notification.limits';
import { recordUndelivered, UNDELIVERED_STATUSES, type SettledMessage } from './notification.worker';

// Twilio's Messages API (https://www.twilio.com/docs/messaging/api/message-resource): a message is created by a
// form-encoded POST with HTTP basic auth; its delivery is reported later to its StatusCallback, a form-encoded POST
// signed in X-Twilio-Signature (https://www.twilio.com/docs/usage/webhooks/webhooks-security).

/** Where Twilio reports a message's status: the notification's id is in the path, which the signature covers. */
export const statusCallbackUrl = (publicUrl: string, notificationId: string) =>
  `${publicUrl}/sms/twilio/status/${notificationId}`;

/** Seconds (`120`) or an HTTP date, as milliseconds from now; null when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

/**
 * Sends through Twilio. A 2xx hands the message over (its SID kept to match the callbacks); a 429 or 5xx is a failed
 * attempt that the notification worker retries (no sooner than a `Retry-After`); any other answer refuses the message
 * for good (an invalid or unsubscribed number, refused credentials), which falls back as a bounced mail does.
 */
export function twilioSmsProvider(settings: TwilioSettings, publicUrl: string): SmsProvider {
  const url = `${settings.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  return {
    async send({ id, to, text }) {
      const form = new URLSearchParams({ To: to, Body: text, StatusCallback: statusCallbackUrl(publicUrl, id) });
      if ('from' in settings.sender) form.set('From', settings.sender.from);
      else form.set('MessagingServiceSid', settings.sender.messagingServiceSid);
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        redirect: 'manual',
        signal: AbortSignal.timeout(NOTIFICATION_SEND_TIMEOUT_MS),
      }).catch((err: Error) => {
        // fetch says only "fetch failed"; its cause names what failed (a refused connection, a timeout).
        throw new Error(`Twilio could not be reached: ${(err.cause as Error | undefined)?.message ?? err.message}`);
      });
      const body = (await response.json().catch(() => null)) as {
        sid?: string;
        code?: number;
        message?: string;
      } | null;
      if (response.ok) return { status: 'SENT', providerMessageId: body?.sid ?? null };
      const what = `Twilio answered ${response.status}${body?.code ? ` (error ${body.code})` : ''}: ${body?.message ?? response.statusText}`;
      const transient = response.status === 429 || response.status >= 500;
      throw new HandoverRefused(what.slice(0, MAX_NOTIFICATION_ERROR), {
        permanent: !transient,
        retryAfterMs: transient ? retryAfterMs(response.headers.get('retry-after'), Date.now()) : null,
      });
    },
  };
}

/** Twilio's signature of a request: HMAC-SHA1 of the URL and every parameter (name then value, sorted by name). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string | string[]>): string {
  const data = Object.keys(params)
    .sort()
    .map((name) => {
      const values = params[name];
      return (Array.isArray(values) ? [...values].sort() : [values]).map((value) => name + value).join('');
    })
    .join('');
  return createHmac('sha1', authToken)
    .update(url + data, 'utf8')
    .digest('base64');
}

/** The statuses a message goes through, in order; a callback that arrives late never moves one back. */
const STATUS_ORDER: Record<string, number> = {
  accepted: 0,
  scheduled: 0,
  queued: 1,
  sending: 2,
  sent: 3,
  delivered: 4,
  read: 5,
  undelivered: 4,
  failed: 4,
  canceled: 4,
};

type StatusBody = { MessageSid: string; MessageStatus: string; ErrorCode?: string };

/**
 * Records a status Twilio reports on the message: `delivery_status`, and for `undelivered` or `failed` the message
 * FAILED with its error code, its fallback queued as for a bounced mail (`recordUndelivered`). A callback that arrives
 * before the send recorded the handover is kept in `delivery_status` and read by the recording.
 */
async function recordStatus(db: Db, clock: Clock, notificationId: string, body: StatusBody): Promise<void> {
  const status = body.MessageStatus.toLowerCase();
  const rank = STATUS_ORDER[status];
  if (rank === undefined) return;
  await db.transaction(async (tx) => {
    const [message] = await tx.rows<SettledMessage & { status: string; delivery_status: string | null }>(
      `select id, organization_id, request_id, recipient_id, channel, kind, address, status, delivery_status from notification
        where id = ? and channel = 'SMS' and (provider_message_id is null or provider_message_id = ?) for update`,
      [notificationId, body.MessageSid],
    );
    if (!message || (message.delivery_status && STATUS_ORDER[message.delivery_status] >= rank)) return;
    await tx.execute(
      'update notification set delivery_status = ?, provider_message_id = ?, updated_at = ? where id = ?',
      [status, body.MessageSid, clock.now(), message.id],
    );
    if (UNDELIVERED_STATUSES.has(status) && message.status === 'SENT')
      await recordUndelivered(
        tx,
        message,
        `Twilio reported ${status}${body.ErrorCode ? ` (error ${body.ErrorCode})` : ''}`,
      );
  });
}

/** The status callback of messages sent through Twilio: answered 204, or 403 when the signature is not Twilio's. */
export function twilioStatusRoute(scope: FastifyInstance): void {
  const { publicUrl, sms, clock } = scope.contexts.settings;
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, text, done) => {
    const params: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(text as string)) {
      const seen = params[name];
      params[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    done(null, params);
  });
  scope.post<{ Params: { notification_id: string }; Body: StatusBody }>(
    '/sms/twilio/status/:notification_id',
    {
      // Twilio calls from many addresses, each callback signed: the signature, not a rate limit, keeps others out.
      config: { public: true, unlimited: true },
      schema: {
        tags: ['Notifications'],
        summary: "Twilio's delivery status of an SMS (signed with the account's auth token in X-Twilio-Signature)",
        consumes: ['application/x-www-form-urlencoded'],
        params: Type.Object({ notification_id: Uuid() }),
        body: Type.Object(
          {
            MessageSid: Type.String({ maxLength: 64 }),
            MessageStatus: Type.String({ maxLength: 32 }),
            ErrorCode: Type.Optional(Type.String({ maxLength: 16 })),
          },
          { additionalProperties: true },
        ),
        response: withErrors({ 204: NoContent, 403: DetailBody }, [422]),
      },
      // Before the body's schema: a request not signed by Twilio learns nothing, not even what it lacks.
      preValidation: async (request, reply) => {
        const expected = sms.twilio
          ? twilioSignature(
              sms.twilio.authToken,
              statusCallbackUrl(publicUrl, request.params.notification_id),
              (request.body ?? {}) as Record<string, string | string[]>,
            )
          : null;
        const given = request.headers['x-twilio-signature'];
        if (!expected || typeof given !== 'string' || !sameSecret(given, expected))
          return reply.code(403).send({ detail: 'The request is not signed by the SMS provider' });
      },
    },
    async (request, reply) => {
      await recordStatus(scope.db, clock, request.params.notification_id, request.body);
      return reply.code(204).send();
    },
  );
}
