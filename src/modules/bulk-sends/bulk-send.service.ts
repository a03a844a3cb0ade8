import { createHash } from 'node:crypto';
import type { BulkSendCreateInput, BulkSendRowInput, RequestCreateInput } from '../../generated/resolvers-types';
import type { Reader } from '../../kernel/db/db';
import { AppError, type UserError } from '../../kernel/errors/app-error';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { addJob } from '../../kernel/jobs/queue';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { isAdmin, type Viewer } from '../identity/viewer';
import type { SharedReads } from '../requests/request.creation';
import { prepareRequest, type Ctx } from '../requests/request.service';
import { requireTemplate } from '../templates/template.service';
import { BulkSend, type BulkSendRow } from './bulk-send.entities';
import { MAX_BULK_SEND_ROWS } from './bulk-send.limits';

/** The job queue's task that makes a bulk send's requests (bulk-send.task.ts). */
export const RUN_TASK = 'bulk_send.run';

/** A row as stored: its line and its input (`dueDate` as JSON gives it, an ISO string). */
export type StoredRow = { line: number; data: BulkSendRowInput };

// Who sees a bulk send: ADMIN every one of its organization; USER its own.
function visibility(viewer: Viewer): { sql: string; params: unknown[] } {
  if (isAdmin(viewer)) return { sql: 'b.organization_id = ?', params: [viewer.organizationId] };
  return { sql: 'b.organization_id = ? and b.owner_id = ?', params: [viewer.organizationId, viewer.userId] };
}

export async function getBulkSend(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<BulkSendRow | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = visibility(ctx.viewer);
  const [bulkSend] = await ctx.db.records(BulkSend, `select b.* from bulk_send b where b.id = ? and ${sql}`, [
    id,
    ...params,
  ]);
  return bulkSend ?? null;
}

export function listBulkSends(ctx: Pick<Ctx, 'db' | 'viewer'>, args: PageArgs): Promise<Connection<BulkSendRow>> {
  const { sql, params } = visibility(ctx.viewer);
  return paginate({ db: ctx.db, entity: BulkSend, sql: `select b.* from bulk_send b where ${sql}`, params }, args, {
    property: 'createdAt',
    column: 'created_at',
    direction: 'DESC',
  });
}

/**
 * A bulk send's counts as its events carry them (`bulk_send.progressed`, `bulk_send.completed`: subscribers load
 * the record itself, so this is what the event table keeps).
 */
export async function bulkSendView(
  db: Reader,
  _settings: unknown,
  id: string,
): Promise<Record<string, unknown> | null> {
  const [view] = await db.rows<Record<string, unknown>>(
    'select id, status, total, created, failed, completed_at from bulk_send where id = ?',
    [id],
  );
  return view ?? null;
}

/** The rows refused at creation, by line. */
export function bulkSendFailures(db: Reader, id: string): Promise<{ line: number; message: string }[]> {
  return db.rows(
    'select line, error as message from bulk_send_row where bulk_send_id = ? and error is not null order by line',
    [id],
  );
}

/** The request a row asks for: the template's, to one recipient, with the row's changes. */
export function requestInputOf(templateId: string, row: BulkSendRowInput): RequestCreateInput {
  const given = <T>(value: T | null | undefined) => value ?? undefined;
  return {
    templateId,
    recipients: [
      {
        firstName: row.firstName,
        lastName: row.lastName,
        email: row.email,
        phone: row.phone,
        language: row.language,
      },
    ],
    name: given(row.name),
    // Stored rows hold it as JSON does, a string.
    dueDate: row.dueDate == null ? undefined : new Date(row.dueDate as Date | string),
    personalMessage: given(row.personalMessage),
    userMetadata: given(row.userMetadata),
  };
}

/** A request's problem as the row's: a recipient's field is the row's field of that name. */
const rowError = (index: number, line: number, error: UserError): UserError => ({
  ...error,
  field: ['rows', String(index), ...(error.field[0] === 'recipients' ? error.field.slice(2) : error.field)],
  message: `Line ${line}: ${error.message}`,
});

/**
 * Checks every row as a request's creation checks its input (a `422` lists each bad row's problems, by line, and
 * nothing is made), then stores the rows and queues the job that makes their requests. The same template and rows
 * again answer the bulk send they made (`replayed`).
 */
export async function createBulkSend(
  ctx: Ctx,
  input: BulkSendCreateInput,
): Promise<{ bulkSend: BulkSendRow; replayed: boolean }> {
  const template = await requireTemplate(ctx, input.templateId);
  const check = new InputCheck();
  check.count(['rows'], input.rows, { min: 1, max: MAX_BULK_SEND_ROWS });
  check.done();
  const rows: StoredRow[] = input.rows.map((data, index) => ({ line: data.line ?? index + 1, data }));
  const key = createHash('sha256')
    .update(JSON.stringify([template.id, rows]))
    .digest('hex');
  const existing = await findByKey(ctx, key);
  if (existing) return { bulkSend: existing, replayed: true };

  const lines = new Set<number>();
  for (const [index, { line }] of rows.entries()) {
    if (lines.has(line)) check.add(['rows', index, 'line'], `Line ${line} is given twice`, 'INVALID');
    lines.add(line);
  }
  // The rows share their reads (the template): checking 1,000 costs the statements of checking one.
  const shared: SharedReads = new Map();
  for (const [index, { line, data }] of rows.entries()) {
    try {
      await prepareRequest(ctx, requestInputOf(template.id, data), shared);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'VALIDATION')) throw err;
      for (const error of err.userErrors) check.errors.push(rowError(index, line, error));
    }
  }
  check.done();

  return ctx.db.transaction(async (tx) => {
    const now = ctx.settings.clock.now();
    // Two sends of the same rows at once: the second finds the first's row once it commits.
    const [bulkSend] = await tx.records(
      BulkSend,
      `insert into bulk_send (id, organization_id, template_id, owner_id, status, total, idempotency_key, created_at, updated_at)
       values (gen_random_uuid(), ?, ?, ?, 'QUEUED', ?, ?, ?, ?)
       on conflict (organization_id, idempotency_key) do nothing returning *`,
      [ctx.viewer.organizationId, template.id, ctx.viewer.userId, rows.length, key, now, now],
    );
    if (!bulkSend) return { bulkSend: (await findByKey({ ...ctx, db: tx }, key))!, replayed: true };
    await tx.execute(
      `insert into bulk_send_row (bulk_send_id, organization_id, line, data)
       select ?, ?, (r->>'line')::int, r->'data' from jsonb_array_elements(?::jsonb) r`,
      [bulkSend.id, ctx.viewer.organizationId, JSON.stringify(rows)],
    );
    await addJob(tx, RUN_TASK, { bulkSendId: bulkSend.id }, { key: `bulk_send:${bulkSend.id}` });
    return { bulkSend, replayed: false };
  });
}

async function findByKey(ctx: Pick<Ctx, 'db' | 'viewer'>, key: string): Promise<BulkSendRow | undefined> {
  const [found] = await ctx.db.records(
    BulkSend,
    'select * from bulk_send where organization_id = ? and idempotency_key = ?',
    [ctx.viewer.organizationId, key],
  );
  return found;
}
