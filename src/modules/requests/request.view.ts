import type { Reader } from '../../kernel/db/db';
import type { ServiceSettings } from '../../kernel/graphql/context';
import type { SubjectView } from '../../kernel/graphql/events';
import type { RestRequestFragment } from '../../generated/operations';
import { extensionPoint } from '../../kernel/module';
import { Request, type RequestRow } from './request.entities';
import { restRequest } from './request.rest-shapes';

// A request as REST shows it, made from its rows: what GET /requests/{id} answers, what a write of
// it answers, and the `data` of its events, read once in the writing transaction. Its items,
// attachments and recipients are read by their modules (`requestViewParts`).

type ViewSettings = Pick<ServiceSettings, 'publicUrl' | 'secret'>;

/**
 * What a module adds to the views of requests: its keys of the REST fragment (request.rest-shapes.ts
 * maps the fragment to the body), read from rows, by request id.
 */
export type RequestViewPart = (
  db: Reader,
  settings: ViewSettings,
  requests: readonly RequestRow[],
) => Promise<Map<string, Partial<RestRequestFragment>>>;

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

/** The REST bodies of `requests` (rows the caller may see), in their order: a fixed number of statements for any number. */
export async function requestViews(
  db: Reader,
  settings: ViewSettings,
  requests: readonly RequestRow[],
): Promise<RequestView[]> {
  if (requests.length === 0) return [];
  const ids = requests.map((request) => request.id);
  const [collaborators, ...parts] = await Promise.all([
    db.rows<CollaboratorLine>(
      `select c.request_id, c.user_id, c.role, u.first_name, u.last_name, u.email
         from collaborator c join app_user u on u.id = c.user_id
        where c.request_id = any(?::uuid[]) and c.organization_id = ?
        order by c.request_id, c.position`,
      [ids, requests[0].organization.id],
    ),
    ...requestViewParts.values().map((part) => part(db, settings, requests)),
  ]);
  const byRequest = new Map<string, RestRequestFragment['collaborators']>(ids.map((id) => [id, []]));
  for (const line of collaborators) {
    byRequest.get(line.request_id)!.push({
      id: line.user_id,
      role: line.role as RestRequestFragment['collaborators'][number]['role'],
      user: { firstName: line.first_name, lastName: line.last_name, email: line.email },
    });
  }
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
      collaborators: byRequest.get(request.id)!,
    } as unknown as Partial<RestRequestFragment>;
    for (const part of parts) Object.assign(fragment, part.get(request.id));
    return restRequest(fragment as RestRequestFragment);
  });
}

/** The REST body of request `id`, deleted or not (an event's subject): null when there is none. */
export const requestSubjectView: SubjectView = async (db, settings, id) => {
  const [request] = await db.records(Request, 'select * from request where id = ?', [id]);
  return request ? requestView(db, settings, request) : null;
};

/** The REST body of one request. */
export async function requestView(db: Reader, settings: ViewSettings, request: RequestRow): Promise<RequestView> {
  const [view] = await requestViews(db, settings, [request]);
  return view;
}
