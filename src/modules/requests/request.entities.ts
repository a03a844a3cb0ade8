import { defineEntity, p, type EntitySchema, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, Team, User, USER_ROLES } from '../identity/identity.entities';
import { CONNECTION_PROVIDERS, LANGUAGES, REQUEST_STATES } from './request.enums';
import type { Row } from '../../kernel/db/db';

// Templates sit above requests (a template makes requests), so the relation names their entity, which
// MikroORM resolves by name at discovery, instead of importing it; the record holds `{ id }` as before.
const Template = 'Template' as unknown as EntitySchema<{ id: string }>;

/** One entry of a request's reminder schedule: a reminder sent at a fixed time. */
export type ReminderScheduleEntry = { sendAt: string; message?: string | null };

/** The owner's last rejection: what the recipients are asked to redo, shown to them until they resubmit. */
export type RequestRejection = { message: string; itemIds: string[]; rejectedAt: string };

export const Request = defineEntity({
  name: 'Request',
  tableName: 'request',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    team: () => p.manyToOne(Team).ref().nullable(),
    template: () => p.manyToOne(Template).ref().nullable(),
    name: p.string().length(255),
    state: p.enum([...REQUEST_STATES]),
    ownerOpened: p.boolean(),
    userOpened: p.boolean(),
    verified: p.boolean(),
    rejected: p.boolean(),
    dueDate: p.datetime().nullable(),
    expirationDate: p.datetime().nullable(),
    autoCloseAt: p.datetime().nullable(),
    firstReminderDate: p.datetime().nullable(),
    personalMessage: p.text().nullable(),
    notes: p.text().nullable(),
    userMetadata: p.json<Record<string, string>>(),
    language: p.enum([...LANGUAGES]),
    reminders: p.integer(),
    reminderSchedule: p.json<ReminderScheduleEntry[]>(),
    cloudStorageFolder: p.text().nullable(),
    cloudStorageProvider: p.enum([...CONNECTION_PROVIDERS]),
    requireCompleteSubmission: p.boolean(),
    disableSubmissionComments: p.boolean(),
    mfaEnabled: p.boolean(),
    skipInitialNotification: p.boolean(),
    closedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    /** When a recipient first submitted (set by the submission; a regenerated link then keeps the state). */
    firstSubmittedAt: p.datetime().nullable(),
    rejection: p.json<RequestRejection>().nullable(),
    ...timestamps(),
  },
});
export type Request = InferEntity<typeof Request>;
/** A Request as read paths return it (see `Row`). */
export type RequestRow = Row<Request>;

export const Collaborator = defineEntity({
  name: 'Collaborator',
  tableName: 'collaborator',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    user: () => p.manyToOne(User).ref(),
    role: p.enum([...USER_ROLES]),
    position: p.integer(),
    createdAt: createdAt(),
  },
});
export type Collaborator = InferEntity<typeof Collaborator>;
/** A Collaborator as read paths return it (see `Row`). */
export type CollaboratorRow = Row<Collaborator>;
