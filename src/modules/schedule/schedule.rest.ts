import { Type } from '@sinclair/typebox';
import {
  EscalationCreateDocument,
  EscalationDeleteDocument,
  EscalationUpdateDocument,
  ReminderSendDocument,
  RequestDuplicateDocument,
  RequestEscalationsDocument,
  RequestRemindersDocument,
  RequestScheduledRemindersDocument,
  ScheduledReminderCreateDocument,
  ScheduledReminderDeleteDocument,
  ScheduledReminderUpdateDocument,
} from '../../generated/operations';
import { found, fromPayload, restRow, serviceRow, type RestRow } from '../../kernel/rest/engine';
import type { MutationRequestDuplicateArgs } from '../../generated/resolvers-types';
import { duplicateRequest } from './duplicate.service';
import { noContent } from '../../kernel/rest/mapping';
import {
  Body,
  DateTime,
  listQuery,
  NoContent,
  Nullable,
  Query,
  StringEnum,
  Text,
  Uuid,
  withErrors,
} from '../../kernel/rest/schemas';
import { MAX_REMINDER_MESSAGE, MAX_REQUEST_NAME } from '../requests/request.limits';
import { requestRest } from '../requests/request.rest-shapes';
import { ESCALATION_CONDITIONS } from './schedule.entities';
import {
  AfterDays,
  EscalationBody,
  EscalationCreateBody,
  escalationInputFromRest,
  ReminderBody,
  restEscalation,
  restReminder,
  restScheduledReminder,
  ScheduledReminderBody,
} from './schedule.rest-shapes';

const tags = ['Requests'];
const RequestParams = Type.Object({ request_id: Uuid() });
const ScheduledParams = Type.Object({ request_id: Uuid(), scheduled_reminder_id: Uuid() });
const EscalationParams = Type.Object({ request_id: Uuid(), escalation_id: Uuid() });

const ReminderSendBody = Body({ message: Nullable(Text(MAX_REMINDER_MESSAGE)) });
const ScheduledCreateBody = Body(
  { send_at: DateTime('when to send it, in the future'), message: Nullable(Text(MAX_REMINDER_MESSAGE)) },
  ['send_at'],
);
const ScheduledUpdateBody = Body({
  send_at: DateTime('when to send it, in the future'),
  message: Nullable(Text(MAX_REMINDER_MESSAGE)),
});
const EscalationUpdateBody = Body({
  condition: StringEnum(ESCALATION_CONDITIONS),
  after_days: AfterDays,
  notify_user_id: Nullable(Uuid()),
  notify_email: Nullable(Type.String({ maxLength: 320 })),
});

/** A PATCH body's fields as GraphQL input: a field left out stays as it is, null clears it. */
const given = <T extends Record<string, unknown>>(input: T): T =>
  Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as T;

/** A record of a request's list, or a 404 naming it. */
const one = <T extends { id: string }>(records: T[], id: string, resource: string): T =>
  found(
    records.find((record) => record.id === id),
    resource,
  );

export function scheduleRestRows(): RestRow[] {
  const { ResponseBody } = requestRest();
  return [
    restRow({
      method: 'POST',
      url: '/requests/:request_id/reminders',
      summary: 'Remind now every recipient who has not submitted',
      tags,
      schema: { params: RequestParams, body: ReminderSendBody, response: withErrors({ 200: ReminderBody }) },
      operation: ReminderSendDocument,
      variables: ({ params, body }) => ({ requestId: params.request_id, input: { message: body?.message ?? null } }),
      result: (data) => ({ body: restReminder(fromPayload(data.reminderSend, 'reminder')) }),
    }),
    restRow({
      method: 'GET',
      url: '/requests/:request_id/reminders',
      summary: "List a request's reminders, newest first (the next one due in X-Next-Reminder-At)",
      tags,
      schema: {
        params: RequestParams,
        querystring: Query({ limit: listQuery('desc').properties.limit }),
        response: withErrors({ 200: Type.Array(ReminderBody) }),
      },
      operation: RequestRemindersDocument,
      variables: ({ params, query }) => ({ id: params.request_id, first: query.limit }),
      result: (data) => {
        const request = found(data.request, 'Request');
        return {
          body: request.sentReminders.nodes.map(restReminder),
          headers: request.nextReminderAt ? { 'x-next-reminder-at': request.nextReminderAt } : undefined,
        };
      },
    }),
    restRow({
      method: 'POST',
      url: '/requests/:request_id/scheduled-reminders',
      summary: 'Schedule a reminder',
      tags,
      schema: {
        params: RequestParams,
        body: ScheduledCreateBody,
        response: withErrors({ 200: ScheduledReminderBody }),
      },
      operation: ScheduledReminderCreateDocument,
      variables: ({ params, body }) => ({
        requestId: params.request_id,
        input: { sendAt: body.send_at, message: body.message ?? null },
      }),
      result: (data) => ({
        body: restScheduledReminder(fromPayload(data.scheduledReminderCreate, 'scheduledReminder')),
      }),
    }),
    restRow({
      method: 'GET',
      url: '/requests/:request_id/scheduled-reminders',
      summary: "List a request's scheduled reminders, by time",
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: Type.Array(ScheduledReminderBody) }) },
      operation: RequestScheduledRemindersDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: found(data.request, 'Request').scheduledReminders.map(restScheduledReminder) }),
    }),
    restRow({
      method: 'GET',
      url: '/requests/:request_id/scheduled-reminders/:scheduled_reminder_id',
      summary: 'Get a scheduled reminder',
      tags,
      schema: { params: ScheduledParams, response: withErrors({ 200: ScheduledReminderBody }) },
      operation: RequestScheduledRemindersDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data, { params }) => ({
        body: restScheduledReminder(
          one(found(data.request, 'Request').scheduledReminders, params.scheduled_reminder_id, 'Scheduled reminder'),
        ),
      }),
    }),
    restRow({
      method: 'PATCH',
      url: '/requests/:request_id/scheduled-reminders/:scheduled_reminder_id',
      summary: 'Change a scheduled reminder not yet sent',
      tags,
      schema: {
        params: ScheduledParams,
        body: ScheduledUpdateBody,
        response: withErrors({ 200: ScheduledReminderBody }),
      },
      operation: ScheduledReminderUpdateDocument,
      variables: ({ params, body }) => ({
        requestId: params.request_id,
        id: params.scheduled_reminder_id,
        input: given({ sendAt: body.send_at, message: body.message }),
      }),
      result: (data) => ({
        body: restScheduledReminder(fromPayload(data.scheduledReminderUpdate, 'scheduledReminder')),
      }),
    }),
    restRow({
      method: 'DELETE',
      url: '/requests/:request_id/scheduled-reminders/:scheduled_reminder_id',
      summary: 'Delete a scheduled reminder',
      tags,
      schema: { params: ScheduledParams, response: withErrors({ 204: NoContent }) },
      operation: ScheduledReminderDeleteDocument,
      variables: ({ params }) => ({ requestId: params.request_id, id: params.scheduled_reminder_id }),
      result: (data) => noContent(data.scheduledReminderDelete, 'deletedScheduledReminderId'),
    }),
    restRow({
      method: 'POST',
      url: '/requests/:request_id/escalations',
      summary: 'Add an escalation rule',
      tags,
      schema: { params: RequestParams, body: EscalationCreateBody, response: withErrors({ 200: EscalationBody }) },
      operation: EscalationCreateDocument,
      variables: ({ params, body }) => ({
        requestId: params.request_id,
        input: escalationInputFromRest(body),
      }),
      result: (data) => ({ body: restEscalation(fromPayload(data.escalationCreate, 'escalation')) }),
    }),
    restRow({
      method: 'GET',
      url: '/requests/:request_id/escalations',
      summary: "List a request's escalation rules",
      tags,
      schema: { params: RequestParams, response: withErrors({ 200: Type.Array(EscalationBody) }) },
      operation: RequestEscalationsDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data) => ({ body: found(data.request, 'Request').escalations.map(restEscalation) }),
    }),
    restRow({
      method: 'GET',
      url: '/requests/:request_id/escalations/:escalation_id',
      summary: 'Get an escalation rule',
      tags,
      schema: { params: EscalationParams, response: withErrors({ 200: EscalationBody }) },
      operation: RequestEscalationsDocument,
      variables: ({ params }) => ({ id: params.request_id }),
      result: (data, { params }) => ({
        body: restEscalation(one(found(data.request, 'Request').escalations, params.escalation_id, 'Escalation')),
      }),
    }),
    restRow({
      method: 'PATCH',
      url: '/requests/:request_id/escalations/:escalation_id',
      summary: 'Change an escalation rule that has not fired',
      tags,
      schema: { params: EscalationParams, body: EscalationUpdateBody, response: withErrors({ 200: EscalationBody }) },
      operation: EscalationUpdateDocument,
      variables: ({ params, body }) => ({
        requestId: params.request_id,
        id: params.escalation_id,
        input: given({
          condition: body.condition,
          afterDays: body.after_days,
          notifyUserId: body.notify_user_id,
          notifyEmail: body.notify_email,
        }),
      }),
      result: (data) => ({ body: restEscalation(fromPayload(data.escalationUpdate, 'escalation')) }),
    }),
    restRow({
      method: 'DELETE',
      url: '/requests/:request_id/escalations/:escalation_id',
      summary: 'Delete an escalation rule',
      tags,
      schema: { params: EscalationParams, response: withErrors({ 204: NoContent }) },
      operation: EscalationDeleteDocument,
      variables: ({ params }) => ({ requestId: params.request_id, id: params.escalation_id }),
      result: (data) => noContent(data.escalationDelete, 'deletedEscalationId'),
    }),
    serviceRow<MutationRequestDuplicateArgs>({
      method: 'POST',
      url: '/requests/:request_id/duplicate',
      summary: 'A new request with the same fields, items and recipients (new links), in its initial state',
      tags,
      schema: {
        params: RequestParams,
        body: Nullable(Body({ name: Text(MAX_REQUEST_NAME, { minLength: 1 }) })),
        response: withErrors({ 200: ResponseBody }),
      },
      operation: RequestDuplicateDocument,
      variables: ({ params, body }) => ({ id: params.request_id, input: { name: body?.name ?? null } }),
      call: async (ctx, { id, input }) => ({ body: (await duplicateRequest(ctx, id, input)).view }),
    }),
  ];
}
