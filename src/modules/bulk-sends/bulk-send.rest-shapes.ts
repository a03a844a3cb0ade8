import { Type } from '@sinclair/typebox';
import type { BulkSendRowInput } from '../../generated/operations';
import type { RestBulkSendFragment } from '../../generated/operations';
import { Body, DateTime, Nullable } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { LanguageSchema, languageFromRest } from '../requests/request.rest-shapes';

// A bulk send's REST shape, and its rows as JSON bodies (and CSV files, column for field) give them. Lengths and
// forms are left to the service, which checks a row as a request's creation does and names its line.

export const BulkSendRowBody = Body({
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  language: Nullable(LanguageSchema),
  name: Nullable(Type.String()),
  due_date: Nullable(DateTime()),
  personal_message: Nullable(Type.String()),
  user_metadata: Nullable(Type.Record(Type.String(), Type.String())),
});
export type BulkSendRowRest = (typeof BulkSendRowBody)['static'];

export const bulkSendRowFromRest = (row: BulkSendRowRest, line?: number): BulkSendRowInput => ({
  line,
  firstName: row.first_name,
  lastName: row.last_name,
  email: row.email,
  phone: row.phone,
  language: row.language == null ? row.language : languageFromRest(row.language),
  name: row.name,
  dueDate: row.due_date,
  personalMessage: row.personal_message,
  userMetadata: row.user_metadata,
});

export const { schema: BulkSendBody, map: restBulkSend } = restShape((field: Field<RestBulkSendFragment>) => ({
  id: Type.String(),
  status: Type.String({ description: 'QUEUED, RUNNING, COMPLETED or FAILED' }),
  template_id: field(Nullable(Type.String()), (bulkSend) => bulkSend.template?.id ?? null),
  owner_id: field(Type.String(), (bulkSend) => bulkSend.owner.id),
  total: Type.Integer(),
  created: Type.Integer(),
  failed: Type.Integer(),
  failures: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() })),
  created_at: Type.String(),
  updated_at: Type.String(),
  completed_at: Nullable(Type.String()),
}));
