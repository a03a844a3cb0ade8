import { Type } from '@sinclair/typebox';
import type { RestNotificationFragment } from '../../generated/operations';
import { Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { languageToRest } from '../requests/request.rest-shapes';

// The REST shape of a notification: snake_case, languages by their REST codes (`en-US`).

export const { schema: NotificationBody, map: restNotification } = restShape(
  (field: Field<RestNotificationFragment>) => ({
    id: Type.String(),
    channel: Type.String(),
    kind: Type.String(),
    address: Type.String(),
    recipient_id: Nullable(Type.String()),
    user_id: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
    language: field(Type.String(), (notification) => languageToRest(notification.language)),
    subject: Nullable(Type.String()),
    text: Nullable(Type.String()),
    html: Nullable(Type.String()),
    status: Type.String(),
    attempt_count: Type.Integer(),
    last_error: Nullable(Type.String()),
    next_attempt_at: Nullable(Type.String()),
    sent_at: Nullable(Type.String()),
    provider_message_id: Nullable(Type.String()),
    delivery_status: Nullable(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);
