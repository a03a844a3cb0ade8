import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import type { Action, Topic } from '../events/event.topics';
import { renderForAnswer, renderSubject, type EmittingContext } from '../../kernel/events/render';
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
import { Team, User } from '../identity/identity.entities';
import { isAdmin, userRefOf, type UserRef, type Viewer } from '../identity/viewer';
import {
  canDeleteRequest,
  requestVisibility,
  requireDeleteRight,
  requireVisibleRequest,
  requireVisibleRequestForUpdate,
  requireVisibleRequestRowForUpdate,
} from './request.access';
import {
  requestCreationParts,
  type NewRequest,
  type RequestCreationPart,
  type RequestCreationPlan,
  type RequestDefaults,
} from './request.creation';
import { Collaborator, Request, type ReminderScheduleEntry, type RequestRow } from './request.entities';
import { DEFAULT_LANGUAGE, DEFAULT_REMINDERS } from './request.enums';
import { transition } from './request.states';
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
  MIN_REMINDERS,
} from './request.limits';
import { insertRecords, newRecord, queryRows, updateAtCommit, updateRecord, type Row } from '../../kernel/db/lean';
import { inLeanTransaction, inTransaction } from '../../kernel/db/transaction';
import { primeAll } from '../../kernel/db/loaders';

export type Ctx = Pick<GraphQLContext, 'em' | 'settings'> & EmittingContext;
type Loaders = Ctx['loaders'];

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
async function prepareCollaborators(ctx: Ctx, check: InputCheck, inputs: CollaboratorInput[] | null | undefined) {
  if (!inputs) return [];
  check.count(['collaborators'], inputs, { max: MAX_COLLABORATORS });
  const ids = inputs.map((c) => c.id).filter(isUuid);
  const users = ids.length
    ? await ctx.em.find(User, { id: { $in: ids }, organization: ctx.viewer.organizationId })
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

type Collaborators = { user: User; role: 'ADMIN' | 'USER' }[];

const collaboratorValues = (request: { id: string; organization: { id: string } }, collaborators: Collaborators) =>
  collaborators.map(({ user, role }, position) => ({
    organization: request.organization.id,
    request: request.id,
    user,
    role,
    position,
  }));

function storeCollaborators(
  em: EntityManager,
  request: { id: string; organization: { id: string } },
  collaborators: Collaborators,
): Collaborator[] {
  return collaboratorValues(request, collaborators).map((values) => em.create(Collaborator, values));
}

/**
 * Writes a request's event, last in its transaction: its data is the request as REST shows it,
 * rendered now unless given (a deletion renders before it deletes), and the render's reads then serve
 * the mutation's answer. `action` and `details` say more than the topic for the activity log;
 * `record` is the request's row as the change wrote it, for this instance's subscribers.
 */
export async function emitRequestEvent(
  tx: EntityManager,
  ctx: Ctx,
  topic: Topic,
  request: { id: string },
  {
    known,
    updated,
    data,
    action,
    details,
    record,
  }: {
    updated?: string[];
    data?: Record<string, unknown>;
    known?: (loaders: Loaders) => void;
    action?: Action;
    details?: Record<string, unknown>;
    record?: RequestRow;
  } = {},
) {
  const subject = { type: 'Request', id: request.id, requestId: request.id };
  const rendered = data ?? (await renderForAnswer(tx, ctx, subject, known));
  return ctx.events.emit(tx, ctx.viewer, {
    topic,
    subjectType: subject.type,
    subjectId: subject.id,
    requestId: subject.requestId,
    updated,
    data: rendered,
    action,
    details,
    record,
  });
}

/**
 * Requests the operation's own creation or update wrote, by the loader set its event render reads
 * through: the render then reads none back (`getRequest`). Kept only while the writer sees the row it
 * wrote: a creator that sees the request by the rules of request.access.ts without a collaboration
 * (always so for a creation); an updater whose lock found the request visible (an update changes
 * nothing visibility rests on but the collaborators, and only a caller who sees the request without
 * them may change those).
 */
const writtenRequests = new WeakMap<Loaders, RequestRow>();

function rememberCreated(loaders: Loaders, viewer: Viewer, request: RequestRow): void {
  // Who may delete a request (ADMIN, its owner, the owner's team) sees it without a collaboration.
  if (canDeleteRequest(viewer, request)) writtenRequests.set(loaders, request);
}

export async function getRequest(ctx: Ctx, id: string): Promise<RequestRow | null> {
  const known = writtenRequests.get(ctx.loaders);
  if (known?.id === id) return known;
  try {
    return await requireVisibleRequest(ctx.em, ctx.viewer, id);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/**
 * `owner_opened` turns true the first time a user reads the request after a submission (the
 * submission turns it false again): one conditional statement then, none on any other read. No
 * event: a read changes nothing a subscriber acts on, and `updated_at` stays.
 */
export async function noteRead(ctx: Pick<Ctx, 'em' | 'viewer'>, request: RequestRow): Promise<RequestRow> {
  if (request.ownerOpened || !request.firstSubmittedAt || ctx.viewer.actor.type !== 'USER') return request;
  // A lean statement: this read may be an event's render inside a lean transaction (a PATCH), where MikroORM may not
  // run.
  await queryRows(ctx.em, 'update request set owner_opened = true where id = ? and not owner_opened', [request.id]);
  return { ...request, ownerOpened: true };
}

/**
 * A page of the requests the viewer may see. The statement is written out rather than built with a
 * QueryBuilder: building it was 7% of a list request's CPU in profiles.
 */
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
  const field = args.orderBy?.field === 'UPDATED_AT' ? 'updatedAt' : 'createdAt';
  return paginate(
    { em: ctx.em, entity: Request, sql: `select r.* from request r where ${conditions.join(' and ')}`, params },
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
async function requestOwner(
  em: EntityManager,
  viewer: Viewer,
  ownerId: string | null | undefined,
): Promise<UserRef | null> {
  // An owner id that is no UUID is refused by the input check; the caller stands in meanwhile.
  if (!ownerId || ownerId === viewer.userId || !isUuid(ownerId)) return userRefOf(viewer);
  const user = await em.findOne(User, { id: ownerId, organization: viewer.organizationId });
  return user && { id: user.id, organizationId: viewer.organizationId, teamId: user.team?.id ?? null };
}

// The parts report their problems in the order of these fields (then collaborators), whatever the
// order of the module list, which is the order their records are built in.
const CHECKED_FIELDS: (keyof RequestCreateInput)[] = ['items', 'attachmentIds', 'recipients'];

const checkOrder = (part: RequestCreationPart) => CHECKED_FIELDS.indexOf(part.field);

export async function createRequest(ctx: Ctx, input: RequestCreateInput): Promise<RequestRow> {
  const { em, viewer } = ctx;
  const check = new InputCheck();
  checkCommonFields(check, input, ctx.settings.clock.now());
  check.uuid(['ownerId'], input.ownerId).uuid(['teamId'], input.teamId).uuid(['templateId'], input.templateId);
  check.count(['items'], input.items, { max: MAX_ITEMS });

  const parts = requestCreationParts.values();
  const plans = new Map<RequestCreationPart, RequestCreationPlan>();
  // Tenancy first: a template the caller cannot see is a 404, an owner outside its reach a 403.
  let defaults: RequestDefaults | null = null;
  for (const part of parts) {
    const plan = await part.defaults?.(ctx, input);
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
  const owner = await requestOwner(em, viewer, input.ownerId);
  if (!owner) check.add(['ownerId'], 'Names no user of your organization', 'NOT_FOUND');
  const team =
    input.teamId && isUuid(input.teamId)
      ? await em.findOne(Team, { id: input.teamId, organization: viewer.organizationId })
      : null;
  if (input.teamId && isUuid(input.teamId) && !team)
    check.add(['teamId'], 'Names no team of your organization', 'NOT_FOUND');

  if (!defaults) {
    if (input.name == null) check.add(['name'], 'Required unless a template is given', 'REQUIRED');
    if (input.items == null) check.add(['items'], 'Required unless a template is given', 'REQUIRED');
  }
  for (const part of [...parts].sort((a, b) => checkOrder(a) - checkOrder(b))) {
    if (part.prepare) plans.set(part, await part.prepare(ctx, check, input));
  }
  const collaborators = await prepareCollaborators(ctx, check, input.collaborators);
  check.done();
  const ordered = parts.flatMap((part) => plans.get(part) ?? []);

  const organization = ordered.find((plan) => plan.organizationDefaults)?.organizationDefaults;

  // Most creations write lean records only; a part that writes through the entity manager needs its transaction.
  const transaction = ordered.some((plan) => plan.managed) ? inTransaction : inLeanTransaction;
  return transaction(em, async (tx) => {
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
    const request = newRecord(tx, Request, {
      organization: viewer.organizationId,
      owner: owner!.id,
      team: team ?? owner!.teamId,
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
    });
    const batches: [EntityName<any>, object[]][] = [
      [Request, [request]],
      [Collaborator, collaboratorValues(request, collaborators).map((values) => newRecord(tx, Collaborator, values))],
    ];
    const created: NewRequest = {
      input,
      request,
      owner: owner!,
      recordsOf: <T extends object>(entity: EntityName<T>) =>
        batches.flatMap(([of, records]) => (of === entity ? (records as Row<T>[]) : [])),
    };
    for (const plan of ordered) {
      const batch = await plan.records?.(tx, created);
      if (batch) batches.push(batch);
    }
    const [stored] = (await insertRecords(tx, batches)) as RequestRow[];
    for (const plan of ordered) await plan.afterInsert?.(tx, created);
    // The request as stored, its relations and its new contacts are all here: the event's render
    // reads nothing back (the REST shape names the owner and team by id only).
    await emitRequestEvent(tx, ctx, 'request.created', stored, {
      record: stored,
      known: (loaders) => {
        rememberCreated(loaders, viewer, stored);
        for (const plan of ordered) plan.prime?.(loaders, created);
        loaders.collaboratorsByRequest.prime(request.id, created.recordsOf(Collaborator));
        primeAll(
          loaders.userById,
          collaborators.map(({ user }) => user),
        );
      },
    });
    return stored;
  });
}

export async function updateRequest(
  ctx: Ctx,
  id: string,
  input: RequestUpdateInput,
): Promise<{ request: RequestRow; updated: string[] }> {
  // Only the collaborators are written through the entity manager: an update without them is lean.
  const transaction = input.collaborators !== undefined ? inTransaction : inLeanTransaction;
  return transaction(ctx.em, async (tx) => {
    const current = await requireVisibleRequestRowForUpdate(tx, ctx.viewer, id);
    const check = new InputCheck();
    checkCommonFields(check, input, ctx.settings.clock.now(), current);
    if (input.collaborators !== undefined)
      requireDeleteRight(ctx.viewer, current, 'change the collaborators of this request');
    const collaborators =
      input.collaborators !== undefined
        ? await prepareCollaborators({ ...ctx, em: tx }, check, input.collaborators ?? [])
        : null;
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
      const stored = await tx.find(Collaborator, { request: current.id }, { orderBy: { position: 'asc' } });
      const key = (list: { user: { id: string }; role: string }[]) =>
        JSON.stringify(list.map((c) => [c.user.id, c.role]));
      if (key(stored) !== key(collaborators)) {
        await tx.nativeDelete(Collaborator, { request: current.id });
        storeCollaborators(tx, current, collaborators);
        updated.push('collaborators');
      }
    }
    if (!updated.length) {
      // No change, no event; rendered all the same, for the REST answer (`committedRender`).
      await renderForAnswer(tx, ctx, { type: 'Request', id: current.id, requestId: current.id }, (loaders) =>
        writtenRequests.set(loaders, current),
      );
      return { request: current, updated };
    }
    // `updatedAt` comes with any change (the entity's onUpdate), the collaborators' too. The update
    // goes with the render's reads when the row it writes is known without reading it back.
    const request =
      (await updateAtCommit(tx, Request, current, changes)) ?? (await updateRecord(tx, Request, current.id, changes));
    await emitRequestEvent(tx, ctx, 'request.updated', request, {
      updated,
      known: (loaders) => writtenRequests.set(loaders, request),
      record: request,
    });
    return { request, updated };
  });
}

export async function deleteRequest(ctx: Ctx, id: string): Promise<string> {
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    requireDeleteRight(ctx.viewer, request);
    // Rendered while still visible: the event shows the request as it was, marked deleted.
    const data = {
      ...(await renderSubject(tx, ctx, { type: 'Request', id: request.id, requestId: request.id })).data,
      deleted: true,
    };
    request.deletedAt = new Date();
    await emitRequestEvent(tx, ctx, 'request.deleted', request, { data });
    return request.id;
  });
}

/** Moves a request to CLOSED (an expired one is refused); closing a closed request changes nothing. */
export async function closeRequest(ctx: Ctx, id: string): Promise<Request> {
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    const state = transition(request.state, 'close');
    if (state !== request.state) {
      request.state = state;
      // The service's clock: retention counts from here, and tests move it.
      request.closedAt = ctx.settings.clock.now();
      await emitRequestEvent(tx, ctx, 'request.closed', request);
    }
    return request;
  });
}

/** Sends a draft: its recipients are invited now (the invitation hook hears `request.sent`). */
export async function sendRequest(ctx: Ctx, id: string): Promise<Request> {
  return inTransaction(ctx.em, async (tx) => {
    const request = await requireVisibleRequestForUpdate(tx, ctx.viewer, id);
    request.state = transition(request.state, 'send-draft');
    await emitRequestEvent(tx, ctx, 'request.updated', request, { updated: ['state'], action: 'request.sent' });
    return request;
  });
}
