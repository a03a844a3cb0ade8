import { Type } from '@sinclair/typebox';
import { RequestActivityDocument } from '../../generated/operations';
import { found, restRow, type RestRow } from '../../kernel/rest/engine';
import { listQuery, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { ActivityBody, restActivity } from './activity.rest-shapes';

export const activityRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/requests/:request_id/activity',
    summary: "List a request's activity, newest first",
    tags: ['Requests'],
    schema: {
      params: Type.Object({ request_id: Uuid() }),
      querystring: Query({ limit: listQuery('desc').properties.limit }),
      response: withErrors({ 200: Type.Array(ActivityBody) }),
    },
    operation: RequestActivityDocument,
    variables: ({ params, query }) => ({ id: params.request_id, first: query.limit }),
    result: (data) => ({ body: found(data.request, 'Request').activity.nodes.map(restActivity) }),
  }),
];
