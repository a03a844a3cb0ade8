import type { EntityName } from '@mikro-orm/core';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { RequestCreateInput } from '../../generated/resolvers-types';
import type { Row, Tx } from '../../kernel/db/db';
import { extensionPoint } from '../../kernel/module';
import type { InputCheck } from '../../kernel/validation/input-check';
import type { UserRef } from '../identity/viewer';
import type { RequestRow } from './request.entities';
import type { Language } from './request.enums';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

/** What a template gives the fields of a new request that its input leaves out. */
export type RequestDefaults = {
  templateId: string;
  name: string;
  personalMessage: string | null;
  language: Language;
  reminders: number;
  /** Days from the request's creation to its due date. */
  dueDateInterval: number | null;
};

/** The request being created, as the parts see it in its transaction. */
export type NewRequest = {
  readonly input: RequestCreateInput;
  readonly request: RequestRow;
  readonly owner: UserRef;
  /** The records of `entity` the parts before this one built (parts run in the order of the module list). */
  readonly recordsOf: CreationRecords;
};

/** The records of `entity` a new request's parts wrote, as its transaction answered them. */
export type CreationRecords = <T extends object>(entity: EntityName<T>) => Row<T>[];

/** Records a part wrote, of one entity. */
export type WrittenRecords = readonly [EntityName<any>, readonly object[]];

/** The organization's defaults for what a request's input and its template leave out. */
export type OrganizationDefaults = {
  /** Days from the request's creation to its expiration; null for none. */
  expirationDays: number | null;
  reminders: number;
  language: Language;
  requireCompleteSubmission: boolean;
};

/** What one part does in the transaction, once its checks passed. */
export type RequestCreationPlan = {
  /** The organization's defaults (one part gives them; requests do not read organizations' settings themselves). */
  organizationDefaults?: OrganizationDefaults;
  /**
   * Writes what the part adds, after the request's row and the parts before it; answers the records it wrote,
   * which later parts may read (`NewRequest.recordsOf`) and the new request's view is made from (request.view.ts).
   */
  write?(tx: Tx, created: NewRequest): Promise<readonly WrittenRecords[]>;
};

/**
 * What several creations checked together share (a bulk send's rows, one template): a part keeps what it read here,
 * under a key of its own, and reads it once for all of them. Each lone creation has its own.
 */
export type SharedReads = Map<string, Promise<unknown>>;

/**
 * What a module adds to a new request (its recipients, items, attachments, a template's defaults).
 * Requests ask through this point, so that they import none of the modules above them.
 */
export type RequestCreationPart = {
  /** The input field whose problems it reports; see CHECKED_FIELDS in request.service.ts. */
  field: keyof RequestCreateInput;
  /**
   * The defaults the input names (a template), read before any other check as a template the caller
   * cannot see is a 404 whatever else is wrong; null when it names none.
   */
  defaults?(
    ctx: Ctx,
    input: RequestCreateInput,
    shared: SharedReads,
  ): Promise<(RequestCreationPlan & { defaults: RequestDefaults }) | null>;
  /** Reads and checks before the transaction (problems go to `check`). */
  prepare?(ctx: Ctx, check: InputCheck, input: RequestCreateInput): Promise<RequestCreationPlan>;
};

export const requestCreationParts = extensionPoint<RequestCreationPart>('request creation');
