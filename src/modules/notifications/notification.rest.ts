import { Type } from '@sinclair/typebox';
import { NotificationListDocument } from '../../generated/operations';
import { restRow, type RestRow } from '../../kernel/rest/engine';
import { listQuery, Query, StringEnum, Uuid, withErrors } from '../../kernel/rest/schemas';
import { NOTIFICATION_STATUSES } from './notification.entities';
import { NotificationBody, restNotification } from './notification.rest-shapes';

const tags = ['Notifications'];

export const notificationRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/notifications',
    summary: "List the organization's notifications (sent, kept or failed), newest first",
    tags,
    schema: {
      querystring: Query({
        limit: listQuery('desc').properties.limit,
        request_id: Uuid('only the notifications about this request'),
        status: StringEnum(NOTIFICATION_STATUSES, `only this status: ${NOTIFICATION_STATUSES.join(', ')}`),
      }),
      response: withErrors({ 200: Type.Array(NotificationBody) }, [403, 422]),
    },
    operation: NotificationListDocument,
    variables: ({ query }) => ({
      first: query.limit,
      requestId: query.request_id ?? null,
      status: query.status ?? null,
    }),
    result: (data) => ({ body: data.notifications.nodes.map(restNotification) }),
  }),
];
