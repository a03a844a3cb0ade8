import type { EntityName } from '@mikro-orm/core';
import { AppError } from '../../kernel/errors/app-error';
import type { Action, Topic } from '../events/event.topics';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type {
  CollaboratorInput,
  RequestCreateInput,
  RequestFilter,
  RequestOrder,
  RequestUpdateInput,
} from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import type { Properties } from '../../kernel/graphql/projection';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { Team, User, type UserRow } from '../identity/identity.entities';
import { isAdmin, userRefOf, type UserRef, type Viewer } from '../identity/viewer';
import {
  findVisibleRequest,
  requestVisibility,
  requireDeleteRight,
  requireVisibleRequestForUpdate,
} from './request.access';
import {
  requestCreationParts,
  type NewRequest,
  type RequestCreationPart,
  type RequestCreationPlan,
  type RequestDefaults,
  type SharedReads,
  type WrittenRecords,
} from './request.creation';
import {
  Collaborator,
  Request,
  type CollaboratorRow,
  type ReminderScheduleEntry,
  type RequestRow,
} from './request.entities';
import { DEFAULT_LANGUAGE, DEFAULT_REMINDERS } from './request.enums';
import { requestUpdateParts, type RequestUpdateWrite } from './request.update-parts';
import { transition } from './request.states';
import { searchCondition } from './request.search';
import { requestView, type RequestView } from './request.view';
import {
  MAX_CLOUD_STORAGE_FOLDER,
  MAX_COLLABORATORS,
  MAX_ITEMS,
  MAX_METADATA_KEY,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
  MAX_NOTES,
  MAX_PERSONAL_MESSAGE,
  MAX_REMINDER_MESSAGE,
  MAX_REMINDER_SCHEDULE,
  MAX_REMINDERS,
  MAX_REQUEST_NAME,
  MAX_REQUEST_SEARCH,
  MIN_REMINDERS,
} from './request.limits';
import type { Reader, Row, Tx } from '../../kernel/db/db';

export type Ctx = Pick<GraphQLContext, 'db' | 'settings' | 'viewer' | 'events' | 'log' | 'requestId'>;

type CommonFields = Omit<RequestUpdateInput, 'collaborators'>;

/**
 * Checks the fields creation and update share. On update, `current` holds the stored request and null
 * must clear something clearable; on creation null just means "not given".
 */
function checkCommonFields(
  check: InputCheck,
  input: CommonFields,
  now: Date,
  current?: { dueDate?: Date | null; expirationDate?: Date | null; reminderSchedule?: ReminderScheduleEntry[] },
) {
  check
    .text(['name'], input.name, { max: MAX_REQUEST_NAME, min: 1 })
    .text(['personalMessage'], input.personalMessage, { max: MAX_PERSONAL_MESSAGE })
    .text(['notes'], input.notes, { max: MAX_NOTES })
    .text(['cloudStorageFolder'], input.cloudStorageFolder, { max: MAX_CLOUD_STORAGE_FOLDER })
    .int(['reminders'], input.reminders, { min: MIN_REMINDERS, max: MAX_REMINDERS })
    .date(['dueDate'], input.dueDate)
    .date(['expirationDate'], input.expirationDate)
    .date(['autoCloseAt'], input.autoCloseAt)
    .date(['firstReminderDate'], input.firstReminderDate)
    .stringMap(['userMetadata'], input.userMetadata, {
      maxKeys: MAX_METADATA_KEYS,
      maxKey: MAX_METADATA_KEY,
      maxValue: MAX_METADATA_VALUE,
    })
    .count(['reminderSchedule'], input.reminderSchedule, { max: MAX_REMINDER_SCHEDULE });
  // Timed work acts on these dates: one already past would act at once, or never (a schedule saved
  // again may keep its entries already sent).
  const kept = new Set(current?.reminderSchedule?.map((entry) => new Date(entry.sendAt).getTime()));
  const future = (field: FieldPath, value: Date | null | undefined, keep = false) => {
    if (value instanceof Date && value.getTime() <= now.getTime() && !(keep && kept.has(value.getTime())))
      check.add(field, 'Must be in the future', 'OUT_OF_RANGE');
  };
  future(['expirationDate'], input.expirationDate);
  future(['autoCloseAt'], input.autoCloseAt);
  future(['firstReminderDate'], input.firstReminderDate);
  input.reminderSchedule?.forEach((entry, index) => {
    check
      .date(['reminderSchedule', index, 'sendAt'], entry.sendAt)
      .text(['reminderSchedule', index, 'message'], entry.message, { max: MAX_REMINDER_MESSAGE });
    future(['reminderSchedule', index, 'sendAt'], entry.sendAt, true);
  });
  const due = input.dueDate !== undefined ? input.dueDate : current?.dueDate;
  const expiration = input.expirationDate !== undefined ? input.expirationDate : current?.expirationDate;
  if (due && expiration && expiration.getTime() <= due.getTime()) {
    check.add(['expirationDate'], 'Must be later than the due date', 'INVALID');
  }
  if (!current) return;
  for (const key of [
    'name',
    'language',
    'reminders',
    'userMetadata',
    'reminderSchedule',
    'cloudStorageProvider',
    'requireCompleteSubmission',
    'disableSubmissionComments',
  ] as const) {
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  }
}

const schedule = (entries: RequestCreateInput['reminderSchedule']): ReminderScheduleEntry[] =>
  (entries ?? []).map((entry) => ({ sendAt: entry.sendAt.toISOString(), message: entry.message ?? null }));

/** Resolves collaborator inputs to users of the organization (problems go to `check`). */
async function prepareCollaborators(
  db: Reader,
  viewer: Viewer,
  check: InputCheck,
  inputs: CollaboratorInput[] | null | undefined,
) {
  if (!inputs) return [];
  check.count(['collaborators'], inputs, { max: MAX_COLLABORATORS });
  const ids = inputs.map((c) => c.id).filter(isUuid);
  const users = ids.length
    ? await db.records(User, `select * from ${db.table(User)} where id = any(?::uuid[]) and organization_id = ?`, [
        ids,
        viewer.organizationId,
      ])
    : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  const seen = new Set<string>();
  return inputs.flatMap((input, index) => {
    check.uuid(['collaborators', index, 'id'], input.id);
    const user = byId.get(input.id);
    if (isUuid(input.id) && !user)
      check.add(['collaborators', index, 'id'], 'Names no user of your organization', 'NOT_FOUND');
    if (seen.has(input.id)) check.add(['collaborators', index, 'id'], 'The same collaborator appears twice', 'INVALID');
    seen.add(input.id);
    return user ? [{ user, role: input.role ?? 'USER' }] : [];
  });
}

type Collaborators = { user: UserRow; role: 'ADMIN' | 'USER' }[];

function storeCollaborators(
  tx: Tx,
  request: { id: string; organization: { id: string } },
  collaborators: Collaborators,
): Promise<CollaboratorRow[]> {
  return tx.insert(
    Collaborator,
    collaborators.map(({ user, role }, position) => ({
      organization: request.organization.id,
      request: request.id,
      user: user.id,
      role,
      position,
    })),
  );
}

/**
 * Writes a request's event, last in its transaction: its data is the request's view as the
 * transaction leaves it (request.view.ts), read now unless given (a deletion reads it before it
 * deletes); answered, as the write's REST answer. `action` and `details` say more than the topic for
 * the activity log.
 */
export async function emitRequestEvent(
  tx: Tx,
  ctx: Ctx,
  topic: Topic,
  request: RequestRow,
  {
    updated,
    data,
    action,
    details,
  }: {
    updated?: string[];
    data?: RequestView;
    action?: Action;
    details?: Record<string, unknown>;
  } = {},
): Promise<RequestView> {
  const view = data ?? (await requestView(tx, ctx.settings, request));
  await ctx.events.emit(tx, ctx.viewer, {
    topic,
    subjectType: 'Request',
    subjectId: request.id,
    requestId: request.id,
    updated,
    data: view,
    action,
    details,
  });
  return view;
}

/** A request and its view, as a write of it answers. */
export type WrittenRequest = { request: RequestRow; view: RequestView };

export async function getRequest(ctx: Ctx, id: string): Promise<RequestRow | null> {
  return findVisibleRequest(ctx.db, ctx.viewer, id);
}

/**
 * `owner_opened` turns true the first time a user reads the request after a submission (the
 * submission turns it false again): one conditional statement then, none on any other read. No
 * event: a read changes nothing a subscriber acts on, and `updated_at` stays.
 */
export async function noteRead(ctx: Pick<Ctx, 'db' | 'viewer'>, request: RequestRow): Promise<RequestRow> {
  if (request.ownerOpened || !request.firstSubmittedAt || ctx.viewer.actor.type !== 'USER') return request;
  await ctx.db.transaction((tx) =>
    tx.execute('update request set owner_opened = true where id = ? and not owner_opened', [request.id]),
  );
  return { ...request, ownerOpened: true };
}

/** A page of the requests the viewer may see. */
export async function listRequests(
  ctx: Ctx,
  args: PageArgs & { filter?: RequestFilter | null; orderBy?: RequestOrder | null },
  properties: Properties = null,
): Promise<Connection<RequestRow>> {
  const { sql: visible, params } = requestVisibility('r', ctx.viewer);
  const conditions = [visible];
  const filter = args.filter ?? {};
  const where = (condition: string, value: unknown) => {
    conditions.push(condition);
    params.push(value);
  };
  // Ids that are no UUIDs name nothing: they narrow the list as an empty set would.
  const ids = (list: readonly string[] | null | undefined, column: string) =>
    list && where(`r.${column} = any(?::uuid[])`, list.filter(isUuid));
  if (filter.states) where('r.state = any(?::text[])', filter.states);
  ids(filter.ownerIds, 'owner_id');
  ids(filter.teamIds, 'team_id');
  ids(filter.templateIds, 'template_id');
  if (filter.createdAfter) where('r.created_at >= ?', filter.createdAfter);
  if (filter.createdBefore) where('r.created_at < ?', filter.createdBefore);
  if (filter.search != null) {
    if (filter.search.length > MAX_REQUEST_SEARCH)
      throw AppError.validation([
        {
          field: ['filter', 'search'],
          message: `search is at most ${MAX_REQUEST_SEARCH} characters`,
          code: 'OUT_OF_RANGE',
        },
      ]);
    const search = searchCondition('r', filter.search);
    if (search) {
      conditions.push(search.sql);
      params.push(...search.params);
    }
  }
  const field = args.orderBy?.field === 'UPDATED_AT' ? 'updatedAt' : 'createdAt';
  return paginate(
    { db: ctx.db, entity: Request, sql: `select r.* from request r where ${conditions.join(' and ')}`, params },
    args,
    {
      property: field,
      column: field === 'updatedAt' ? 'updated_at' : 'created_at',
      direction: args.orderBy?.direction ?? 'DESC',
    },
    properties,
  );
}

/** The owner of a new request: the caller, or (for an ADMIN, checked before) a user of its organization. */
async function requestOwner(db: Reader, viewer: Viewer, ownerId: string | null | undefined): Promise<UserRef | null> {
  // An owner id that is no UUID is refused by the input check; the caller stands in meanwhile.
  if (!ownerId || ownerId === viewer.userId || !isUuid(ownerId)) return userRefOf(viewer);
  const [user] = await db.records(User, `select * from ${db.table(User)} where id = ? and organization_id = ?`, [
    ownerId,
    viewer.organizationId,
  ]);
  return user ? { id: user.id, organizationId: viewer.organizationId, teamId: user.team?.id ?? null } : null;
}

// The parts report their problems in the order of these fields (then collaborators), whatever the
// order of the module list, which is the order their records are written in.
const CHECKED_FIELDS: (keyof RequestCreateInput)[] = ['items', 'attachmentIds', 'recipients', 'escalations'];

const checkOrder = (part: RequestCreationPart) => CHECKED_FIELDS.indexOf(part.field);

/** A creation checked and planned by `prepareRequest`, nothing written yet. */
export type PreparedRequest = {
  input: RequestCreateInput;
  defaults: RequestDefaults | null;
  owner: UserRef;
  team: Row<Team> | undefined;
  collaborators: Awaited<ReturnType<typeof prepareCollaborators>>;
  ordered: RequestCreationPlan[];
  organization: RequestCreationPlan['organizationDefaults'];
};

/**
 * Checks a creation's input as `createRequest` does (a `422` lists every problem) and plans what its parts
 * write, writing nothing: a bulk send checks all its rows with it before it creates any, sharing their reads.
 */
export async function prepareRequest(
  ctx: Ctx,
  input: RequestCreateInput,
  shared: SharedReads = new Map(),
): Promise<PreparedRequest> {
  const { db, viewer } = ctx;
  const check = new InputCheck();
  checkCommonFields(check, input, ctx.settings.clock.now());
  check.uuid(['ownerId'], input.ownerId).uuid(['teamId'], input.teamId).uuid(['templateId'], input.templateId);
  check.count(['items'], input.items, { max: MAX_ITEMS });

  const parts = requestCreationParts.values();
  const plans = new Map<RequestCreationPart, RequestCreationPlan>();
  // Tenancy first: a template the caller cannot see is a 404, an owner outside its reach a 403.
  let defaults: RequestDefaults | null = null;
  for (const part of parts) {
    const plan = await part.defaults?.(ctx, input, shared);
    if (plan) {
      defaults = plan.defaults;
      plans.set(part, plan);
    }
  }
  if (input.ownerId && input.ownerId !== viewer.userId && !isAdmin(viewer)) {
    throw AppError.forbidden('Only an ADMIN may create requests for another owner');
  }
  // A team sees its requests, so a USER may file requests under its own team only.
  if (input.teamId && input.teamId !== viewer.teamId && !isAdmin(viewer)) {
    throw AppError.forbidden('Only an ADMIN may create requests for another team');
  }
  const owner = await requestOwner(db, viewer, input.ownerId);
  if (!owner) check.add(['ownerId'], 'Names no user of your organization', 'NOT_FOUND');
  const [team] =
    input.teamId && isUuid(input.teamId)
      ? await db.records(Team, 'select * from team where id = ? and organization_id = ?', [
          input.teamId,
          viewer.organizationId,
        ])
      : [];
  if (input.teamId && isUuid(input.teamId) && !team)
    check.add(['teamId'], 'Names no team of your organization', 'NOT_FOUND');

  if (!defaults) {
    if (input.name == null) check.add(['name'], 'Required unless a template is given', 'REQUIRED');
    if (input.items == null) check.add(['items'], 'Required unless a template is given', 'REQUIRED');
  }
  for (const part of [...parts].sort((a, b) => checkOrder(a) - checkOrder(b))) {
    if (part.prepare) plans.set(part, await part.prepare(ctx, check, input));
  }
  const collaborators = await prepareCollaborators(db, viewer, check, input.collaborators);
  check.done();
  const ordered = parts.flatMap((part) => plans.get(part) ?? []);

  const organization = ordered.find((plan) => plan.organizationDefaults)?.organizationDefaults;
  return { input, defaults, owner: owner!, team, collaborators, ordered, organization };
}

export async function createRequest(
  ctx: Ctx,
  input: RequestCreateInput,
  shared?: SharedReads,
): Promise<WrittenRequest> {
  const { defaults, owner, team, collaborators, ordered, organization } = await prepareRequest(ctx, input, shared);
  const { viewer } = ctx;
  return ctx.db.transaction(async (tx) => {
    const dueDate =
      input.dueDate ??
      (defaults?.dueDateInterval != null ? new Date(Date.now() + defaults.dueDateInterval * 86_400_000) : null);
    if (dueDate && input.expirationDate && input.expirationDate.getTime() <= dueDate.getTime()) {
      throw AppError.validation([
        { field: ['expirationDate'], message: 'Must be later than the due date the template sets', code: 'INVALID' },
      ]);
    }
    // An explicit null asks for no expiration; only an absent one takes the organization's default.
    const expirationDate =
      input.expirationDate !== undefined
        ? input.expirationDate
        : organization?.expirationDays
          ? new Date(Date.now() + organization.expirationDays * 86_400_000)
          : null;
    if (dueDate && expirationDate && !input.expirationDate && expirationDate.getTime() <= dueDate.getTime()) {
      throw AppError.validation([
        {
          field: ['expirationDate'],
          message: `The organization's default expiration (${organization!.expirationDays} days) is not later than the due date: give one`,
          code: 'INVALID',
        },
      ]);
    }
    // A draft notifies nobody until it is sent; `skip_initial_notification` never notifies at creation.
    const state = transition(
      null,
      input.draft ? 'create-draft' : input.skipInitialNotification ? 'create-skip-notification' : 'create',
    );
    const [request] = await tx.insert(Request, [
      {
        organization: viewer.organizationId,
        owner: owner.id,
        team: team?.id ?? owner.teamId,
        template: defaults?.templateId ?? null,
        name: (input.name ?? defaults?.name ?? '').trim(),
        state,
        ownerOpened: false,
        userOpened: false,
        verified: false,
        rejected: false,
        dueDate,
        expirationDate,
        autoCloseAt: input.autoCloseAt ?? null,
        firstReminderDate: input.firstReminderDate ?? null,
        personalMessage: input.personalMessage ?? defaults?.personalMessage ?? null,
        notes: input.notes ?? null,
        userMetadata: (input.userMetadata as Record<string, string> | null | undefined) ?? {},
        language: input.language ?? defaults?.language ?? organization?.language ?? DEFAULT_LANGUAGE,
        reminders: input.reminders ?? defaults?.reminders ?? organization?.reminders ?? DEFAULT_REMINDERS,
        reminderSchedule: schedule(input.reminderSchedule),
        cloudStorageFolder: input.cloudStorageFolder ?? null,
        cloudStorageProvider: input.cloudStorageProvider ?? 'SERVICE',
        requireCompleteSubmission: input.requireCompleteSubmission ?? organization?.requireCompleteSubmission ?? false,
        disableSubmissionComments: input.disableSubmissionComments ?? false,
        mfaEnabled: input.mfaEnabled ?? false,
        skipInitialNotification: input.skipInitialNotification ?? false,
        closedAt: null,
        firstSubmittedAt: null,
        rejection: null,
        deletedAt: null,
      },
    ]);
    const written: WrittenRecords[] = [[Collaborator, await storeCollaborators(tx, request, collaborators)]];
    const created: NewRequest = {
      input,
      request,
      owner,
      recordsOf: <T extends object>(entity: EntityName<T>) =>
        written.flatMap(([of, records]) => (of === entity ? (records as Row<T>[]) : [])),
    };
    for (const plan of ordered) if (plan.write) written.push(...(await plan.write(tx, created)));
    // The request is new: what its parts wrote is all it has.
    const view = await requestView(tx, ctx.settings, request, created.recordsOf);
    return { request, view: await emitRequestEvent(tx, ctx, 'request.created', request, { data: view }) };
  });
}

export async function updateRequest(
  ctx: Ctx,
  id: string,
  input: RequestUpdateInput,
): Promise<WrittenRequest & { updated: string[] }> {
  return ctx.db.transaction(async (tx) => {
    const current = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const check = new InputCheck();
    checkCommonFields(check, input, ctx.settings.clock.now(), current);
    if (input.collaborators !== undefined)
      requireDeleteRight(ctx.viewer, current, 'change the collaborators of this request');
    const collaborators =
      input.collaborators !== undefined
        ? await prepareCollaborators(tx, ctx.viewer, check, input.collaborators ?? [])
        : null;
    const partWrites: [string, RequestUpdateWrite][] = [];
    for (const part of requestUpdateParts.values()) {
      const write = await part.prepare(ctx, tx, check, input, current);
      if (write) partWrites.push([part.field, write]);
    }
    check.done();

    const updated: string[] = [];
    const changes: { -readonly [K in keyof RequestRow]?: RequestRow[K] } = {};
    const assign = <K extends keyof RequestRow>(key: K, value: RequestRow[K] | undefined) => {
      if (value === undefined) return;
      const before = current[key];
      const same =
        before instanceof Date && value instanceof Date
          ? before.getTime() === value.getTime()
          : JSON.stringify(before) === JSON.stringify(value);
      if (same) return;
      changes[key] = value;
      updated.push(key as string);
    };
    assign('name', input.name?.trim());
    assign('dueDate', input.dueDate);
    assign('expirationDate', input.expirationDate);
    assign('autoCloseAt', input.autoCloseAt);
    assign('firstReminderDate', input.firstReminderDate);
    assign('personalMessage', input.personalMessage);
    assign('notes', input.notes);
    assign('userMetadata', (input.userMetadata ?? undefined) as Record<string, string> | undefined);
    assign('language', input.language ?? undefined);
    assign('reminders', input.reminders ?? undefined);
    assign('reminderSchedule', input.reminderSchedule ? schedule(input.reminderSchedule) : undefined);
    assign('cloudStorageFolder', input.cloudStorageFolder);
    assign('cloudStorageProvider', input.cloudStorageProvider ?? undefined);
    assign('requireCompleteSubmission', input.requireCompleteSubmission ?? undefined);
    assign('disableSubmissionComments', input.disableSubmissionComments ?? undefined);
    if (collaborators) {
      const stored = await tx.records(
        Collaborator,
        'select * from collaborator where request_id = ? order by position',
        [current.id],
      );
      const key = (list: { user: { id: string }; role: string }[]) =>
        JSON.stringify(list.map((c) => [c.user.id, c.role]));
      if (key(stored) !== key(collaborators)) {
        await tx.execute('delete from collaborator where request_id = ?', [current.id]);
        await storeCollaborators(tx, current, collaborators);
        updated.push('collaborators');
      }
    }
    for (const [field, write] of partWrites) if (await write(tx)) updated.push(field);
    // A user changing a submitted request has seen it (`noteRead`); that alone is no change.
    const opens = !current.ownerOpened && current.firstSubmittedAt != null && ctx.viewer.actor.type === 'USER';
    if (!updated.length) {
      if (opens) await tx.execute('update request set owner_opened = true where id = ?', [current.id]);
      const request = opens ? { ...current, ownerOpened: true } : current;
      // No change, no event.
      return { request, updated, view: await requestView(tx, ctx.settings, request) };
    }
    // `updatedAt` comes with any change (the entity's onUpdate), the collaborators' too.
    const request = await tx.update(Request, current.id, opens ? { ...changes, ownerOpened: true } : changes);
    return { request, updated, view: await emitRequestEvent(tx, ctx, 'request.updated', request, { updated }) };
  });
}

export async function deleteRequest(ctx: Ctx, id: string): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    requireDeleteRight(ctx.viewer, request);
    // The event shows the request as it was, marked deleted.
    const data = { ...(await requestView(tx, ctx.settings, request)), deleted: true };
    await tx.update(Request, request.id, { deletedAt: new Date() });
    await emitRequestEvent(tx, ctx, 'request.deleted', request, { data });
    return request.id;
  });
}

/** Moves a request to CLOSED (an expired one is refused); closing a closed request changes nothing. */
export async function closeRequest(ctx: Ctx, id: string): Promise<WrittenRequest> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const state = transition(request.state, 'close');
    if (state === request.state) return { request, view: await requestView(tx, ctx.settings, request) };
    // The service's clock: retention counts from here, and tests move it.
    const closed = await tx.update(Request, request.id, { state, closedAt: ctx.settings.clock.now() });
    return { request: closed, view: await emitRequestEvent(tx, ctx, 'request.closed', closed) };
  });
}

/** Sends a draft: its recipients are invited now (the invitation hook hears `request.sent`). */
export async function sendRequest(ctx: Ctx, id: string): Promise<WrittenRequest> {
  return ctx.db.transaction(async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const sent = await tx.update(Request, request.id, { state: transition(request.state, 'send-draft') });
    const view = await emitRequestEvent(tx, ctx, 'request.updated', sent, {
      updated: ['state'],
      action: 'request.sent',
    });
    return { request: sent, view };
  });
}
