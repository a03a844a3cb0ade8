import type { EntityName } from '@mikro-orm/core';
import type { Reader } from '../../kernel/db/db';
import type { ServiceSettings } from '../../kernel/graphql/context';
import type { SubjectView } from '../../kernel/graphql/events';
import type { RestRequestFragment } from '../../generated/operations';
import { extensionPoint } from '../../kernel/module';
import type { CreationRecords } from './request.creation';
import { Collaborator, Request, type RequestRow } from './request.entities';
import { restRequest } from './request.rest-shapes';

// A request as REST shows it, made from its rows: what GET /requests/{id} answers, what a write of
// it answers, and the `data` of its events, read once in the writing transaction (a new request's
// from the rows its creation wrote, which are all it has). Its items, attachments and recipients
// come from their modules (`requestViewParts`).

type ViewSettings = Pick<ServiceSettings, 'publicUrl' | 'secret'>;

/**
 * What a module adds to the views of requests: its lines (rows of `entity`, maybe joined), read by request id, shaped
 * into its keys of the REST fragment (request.rest-shapes.ts maps the fragment to the body).
 */
export type RequestViewPart<Line = any> = {
  /** What its lines are rows of: a new request's are those its creation wrote, so without any there is none to read. */
  entity: EntityName<any>;
  read(db: Reader, requests: readonly RequestRow[]): Promise<Line[]>;
  /** A new request's lines from the records its creation wrote, when they hold what it shows (read otherwise). */
  written?(recordsOf: CreationRecords): Line[];
  /** Its keys of each request's fragment (of every one of `requests`, by id), from the lines read. */
  shape(settings: ViewSettings, requests: readonly RequestRow[], lines: readonly Line[]): FragmentParts;
};

type FragmentParts = Map<string, Partial<RestRequestFragment>>;

export const requestViewParts = extensionPoint<RequestViewPart>('request view');

/** The REST body of a request. */
export type RequestView = ReturnType<typeof restRequest>;

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

type CollaboratorLine = {
  request_id: string;
  user_id: string;
  role: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
};

/** The requests' own part: their collaborators. */
const collaboratorsPart: RequestViewPart<CollaboratorLine> = {
  entity: Collaborator,
  read: (db, requests) =>
    db.rows<CollaboratorLine>(
      `select c.request_id, c.user_id, c.role, u.first_name, u.last_name, u.email
         from collaborator c join app_user u on u.id = c.user_id
        where c.request_id = any(?::uuid[]) and c.organization_id = ?
        order by c.request_id, c.position`,
      [requests.map((request) => request.id), requests[0].organization.id],
      { prepared: true },
    ),
  shape(_settings, requests, lines) {
    const byRequest = new Map<string, RestRequestFragment['collaborators']>(
      requests.map((request) => [request.id, []]),
    );
    for (const line of lines) {
      byRequest.get(line.request_id)!.push({
        id: line.user_id,
        role: line.role as RestRequestFragment['collaborators'][number]['role'],
        user: { firstName: line.first_name, lastName: line.last_name, email: line.email },
      });
    }
    return new Map([...byRequest].map(([id, collaborators]) => [id, { collaborators }]));
  },
};

/**
 * The REST bodies of `requests` (rows the caller may see), in their order: a fixed number of statements for any
 * number. Given the records a request's creation wrote (`created`, in its transaction), its parts are made from
 * those: without a read when a part can (`written`), and none when it wrote none of the part's entity.
 */
export async function requestViews(
  db: Reader,
  settings: ViewSettings,
  requests: readonly RequestRow[],
  created?: CreationRecords,
): Promise<RequestView[]> {
  if (requests.length === 0) return [];
  const parts = [collaboratorsPart, ...requestViewParts.values()];
  const lines = await Promise.all(
    parts.map((part) => {
      if (!created) return part.read(db, requests);
      if (created(part.entity).length === 0) return [];
      return part.written ? part.written(created) : part.read(db, requests);
    }),
  );
  const shaped = parts.map((part, at) => part.shape(settings, requests, lines[at]));
  return requests.map((request) => {
    const fragment = {
      id: request.id,
      name: request.name,
      state: request.state,
      owner: { id: request.owner.id },
      team: request.team ? { id: request.team.id } : null,
      template: request.template ? { id: request.template.id } : null,
      ownerOpened: request.ownerOpened,
      userOpened: request.userOpened,
      verified: request.verified,
      rejected: request.rejected,
      rejection: request.rejection ?? null,
      dueDate: iso(request.dueDate),
      expirationDate: iso(request.expirationDate),
      autoCloseAt: iso(request.autoCloseAt),
      firstReminderDate: iso(request.firstReminderDate),
      personalMessage: request.personalMessage,
      notes: request.notes,
      userMetadata: request.userMetadata,
      language: request.language,
      reminders: request.reminders,
      reminderSchedule: request.reminderSchedule.map((entry) => ({
        sendAt: entry.sendAt,
        message: entry.message ?? null,
      })),
      cloudStorageFolder: request.cloudStorageFolder,
      cloudStorageProvider: request.cloudStorageProvider,
      requireCompleteSubmission: request.requireCompleteSubmission,
      disableSubmissionComments: request.disableSubmissionComments,
      mfaEnabled: request.mfaEnabled,
      closedAt: iso(request.closedAt),
      createdAt: iso(request.createdAt)!,
      updatedAt: iso(request.updatedAt)!,
    } as unknown as Partial<RestRequestFragment>;
    for (const part of shaped) Object.assign(fragment, part.get(request.id));
    return restRequest(fragment as RestRequestFragment);
  });
}

/** The REST body of request `id`, deleted or not (an event's subject): null when there is none. */
export const requestSubjectView: SubjectView = async (db, settings, id) => {
  const [request] = await db.records(Request, 'select * from request where id = ?', [id]);
  return request ? requestView(db, settings, request) : null;
};

/** The REST body of one request (`created`: see `requestViews`). */
export async function requestView(
  db: Reader,
  settings: ViewSettings,
  request: RequestRow,
  created?: CreationRecords,
): Promise<RequestView> {
  const [view] = await requestViews(db, settings, [request], created);
  return view;
}
