import { Type } from '@sinclair/typebox';
import type { RestRequestFragment } from '../../generated/operations';
import type { Reader, Tx } from '../../kernel/db/db';
import { Body, Nullable } from '../../kernel/rest/schemas';
import type { InputCheck } from '../../kernel/validation/input-check';
import type { RequestCreationPart } from '../requests/request.creation';
import type { RequestRow } from '../requests/request.entities';
import type { RequestRestPart } from '../requests/request.rest-parts';
import type { RequestUpdatePart } from '../requests/request.update-parts';
import type { RequestViewPart } from '../requests/request.view';
import type { EscalationCreateInput } from '../../generated/resolvers-types';
import { Escalation, type EscalationRow } from './schedule.entities';
import { MAX_ESCALATIONS } from './schedule.limits';
import { EscalationBody, EscalationCreateBody, escalationInputFromRest, restEscalation } from './schedule.rest-shapes';
import { cancelJob, checkEscalations, escalationFields, type EscalationFields } from './schedule.service';

// A request's `escalations` (spec 2.1, later revision): the rules `escalationCreate` makes, given with the request on
// create and update and answered with it. The rows are written with the request; their jobs are planned by the
// schedule consumer once the request's event committed (schedule.planning.ts), as `escalationCreate` plans its own.

type Ctx = Parameters<typeof checkEscalations>[0];

/** Checks a request's rules, each one's problems at its index. */
async function checkRules(
  ctx: Ctx,
  db: Reader,
  check: InputCheck,
  inputs: EscalationCreateInput[],
): Promise<EscalationFields[]> {
  check.count(['escalations'], inputs, { max: MAX_ESCALATIONS });
  const rules = inputs.map(escalationFields);
  await checkEscalations(ctx, db, check, rules, (index) => ['escalations', index]);
  return rules;
}

function insertRules(tx: Tx, request: Pick<RequestRow, 'id' | 'organization'>, rules: EscalationFields[]) {
  const now = Date.now();
  return tx.insert(
    Escalation,
    rules.map((rule, index) => ({
      // A millisecond apart: the rules are listed by creation, in the order given.
      createdAt: new Date(now + index),
      organization: request.organization.id,
      request: request.id,
      condition: rule.condition,
      afterDays: rule.afterDays,
      notifyUser: rule.notifyUserId,
      notifyEmail: rule.notifyEmail,
      status: 'PENDING' as const,
      firedAt: null,
    })),
  );
}

export const requestEscalationsPart: RequestCreationPart = {
  field: 'escalations',
  async prepare(ctx, check, input) {
    if (!input.escalations?.length) return {};
    const rules = await checkRules(ctx, ctx.db, check, input.escalations);
    return { write: async (tx, { request }) => [[Escalation, await insertRules(tx, request, rules)]] };
  },
};

const sameRule = (row: EscalationRow, rule: EscalationFields) =>
  row.condition === rule.condition &&
  row.afterDays === rule.afterDays &&
  (row.notifyUser?.id ?? null) === rule.notifyUserId &&
  (row.notifyEmail ?? null) === rule.notifyEmail;

/**
 * The rules replace the request's: each rule equal to one it holds keeps that one (its id, its status, its job), the
 * rest it holds are deleted with their jobs, the new ones inserted.
 */
export const requestEscalationsUpdate: RequestUpdatePart = {
  field: 'escalations',
  async prepare(ctx, tx, check, input, request) {
    if (input.escalations === undefined) return null;
    if (input.escalations === null) {
      check.add(['escalations'], 'Cannot be null', 'INVALID');
      return null;
    }
    const rules = await checkRules(ctx, tx, check, input.escalations);
    return async (tx) => {
      const held = await tx.records(
        Escalation,
        'select * from escalation where request_id = ? order by created_at, id for update',
        [request.id],
      );
      const kept = new Set<EscalationRow>();
      const added = rules.filter((rule) => {
        const same = held.find((row) => !kept.has(row) && sameRule(row, rule));
        if (same) kept.add(same);
        return !same;
      });
      const gone = held.filter((row) => !kept.has(row)).map((row) => row.id);
      if (gone.length) {
        await tx.execute('delete from escalation where id = any(?::uuid[])', [gone]);
        await cancelJob(
          tx,
          gone.map((id) => `escalation:${id}`),
          ctx.settings.clock.now(),
        );
      }
      if (added.length) await insertRules(tx, request, added);
      return gone.length > 0 || added.length > 0;
    };
  },
};

type EscalationLine = {
  id: string;
  request_id: string;
  condition: EscalationRow['condition'];
  after_days: number;
  notify_user_id: string | null;
  notify_email: string | null;
  status: EscalationRow['status'];
  fired_at: Date | null;
  created_at: Date;
};

/** The requests' rules as their views show them, oldest first; a rule naming nobody tells the owner. */
export const requestEscalationsView: RequestViewPart<EscalationLine> = {
  entity: Escalation,
  read: (db, requests) =>
    db.rows<EscalationLine>(
      `select id, request_id, condition, after_days, notify_user_id, notify_email, status, fired_at, created_at
         from escalation where request_id = any(?::uuid[]) and organization_id = ? order by created_at, id`,
      [requests.map((request) => request.id), requests[0].organization.id],
      { prepared: true },
    ),
  shape(_settings, requests, lines) {
    const owners = new Map(requests.map((request) => [request.id, request.owner.id]));
    const byRequest = new Map<string, RestRequestFragment['escalations']>(requests.map((request) => [request.id, []]));
    for (const line of lines) {
      const notifyUserId = line.notify_email ? null : (line.notify_user_id ?? owners.get(line.request_id)!);
      byRequest.get(line.request_id)!.push({
        id: line.id,
        requestId: line.request_id,
        condition: line.condition,
        afterDays: line.after_days,
        notifyUser: notifyUserId ? { id: notifyUserId } : null,
        notifyEmail: line.notify_email,
        status: line.status,
        firedAt: line.fired_at?.toISOString() ?? null,
        createdAt: line.created_at.toISOString(),
      });
    }
    return new Map([...byRequest].map(([id, escalations]) => [id, { escalations }]));
  },
};

const EscalationsBody = Type.Array(EscalationCreateBody, {
  maxItems: MAX_ESCALATIONS,
  description: `escalation rules, as POST /requests/{request_id}/escalations takes them (${MAX_ESCALATIONS} at most)`,
});

const RequestEscalationsBody = Body({ escalations: Nullable(EscalationsBody) });

export const requestEscalationsRestPart: RequestRestPart<typeof RequestEscalationsBody> = {
  createBody: RequestEscalationsBody,
  input: (body) => ({ escalations: body.escalations?.map(escalationInputFromRest) }),
  update: {
    body: Body({ escalations: EscalationsBody }),
    input: (body) =>
      'escalations' in body
        ? {
            escalations: (body.escalations as typeof EscalationsBody.static | null)?.map(escalationInputFromRest),
          }
        : {},
  },
  response: (field) => ({
    escalations: field(Type.Array(EscalationBody), (r) => r.escalations.map(restEscalation)),
  }),
};
