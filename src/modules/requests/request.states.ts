import { nextState, type StateTable } from '../../kernel/state-table';
import { REQUEST_STATES, type RequestState } from './request.enums';

// API-DECISIONS "States": every path that changes a request's state asks `transition`, so a move the
// table lacks is refused the same way whichever endpoint, job or recipient action attempts it.

/** Until the first submission. */
const BEFORE_SUBMISSION = [
  'PRE_LINK_GENERATED',
  'INCOMPLETE_AND_FRESHLY_GENERATED',
  'INCOMPLETE_AND_LINK_GENERATED',
  'INCOMPLETE_AND_LINK_SENT',
] as const satisfies readonly RequestState[];

/** Where recipients may still act: before a submission, after a rejection, or warned of the expiration. */
export const OPEN_STATES: readonly RequestState[] = [...BEFORE_SUBMISSION, 'REJECTED', 'EXPIRATION_EMAIL_SENT'];

/** Waiting for the owner's review. */
export const SUBMITTED_STATES: readonly RequestState[] = [
  'PARTIALLY_SUBMITTED',
  'SUBMITTED',
  'UPDATED_AND_SUBMITTED',
  'COMPLETE_AND_SUBMITTED',
];

const allBut = (state: RequestState): readonly RequestState[] => REQUEST_STATES.filter((s) => s !== state);

export type TransitionContext = {
  /** A recipient submitted the request before this trigger (a rejection or a regenerated link does not undo that). */
  submittedBefore: boolean;
};

export const REQUEST_TRIGGERS = [
  'create',
  'create-skip-notification',
  'create-draft',
  'send-draft',
  'regenerate-link',
  'submit-complete',
  'submit-required-complete',
  'submit-partial',
  'reject',
  'verify',
  'expiration-warning',
  'expire',
  'close',
] as const;
export type RequestTrigger = (typeof REQUEST_TRIGGERS)[number];

export const REQUEST_STATE_TABLE = {
  kind: 'request state',
  moves: {
    create: { from: null, to: 'INCOMPLETE_AND_LINK_SENT' },
    'create-skip-notification': { from: null, to: 'INCOMPLETE_AND_LINK_GENERATED' },
    'create-draft': { from: null, to: 'PRE_LINK_GENERATED' },
    'send-draft': { from: ['PRE_LINK_GENERATED'], to: 'INCOMPLETE_AND_LINK_SENT' },
    // The old link stops working either way; only a request nobody submitted looks fresh again.
    'regenerate-link': {
      from: OPEN_STATES,
      to: (from, { submittedBefore }) => (submittedBefore ? from : 'INCOMPLETE_AND_FRESHLY_GENERATED'),
    },
    'submit-complete': { from: OPEN_STATES, to: 'COMPLETE_AND_SUBMITTED' },
    'submit-required-complete': {
      from: OPEN_STATES,
      to: (_from, { submittedBefore }) => (submittedBefore ? 'UPDATED_AND_SUBMITTED' : 'SUBMITTED'),
    },
    // Allowed here whatever `require_complete_submission` says: that setting is checked before the trigger.
    'submit-partial': { from: OPEN_STATES, to: 'PARTIALLY_SUBMITTED' },
    reject: { from: SUBMITTED_STATES, to: 'REJECTED' },
    // The owner's verification, or the last item's.
    verify: { from: SUBMITTED_STATES, to: 'VERIFIED' },
    'expiration-warning': { from: OPEN_STATES, to: 'EXPIRATION_EMAIL_SENT' },
    expire: { from: allBut('CLOSED'), to: 'EXPIRED' },
    // The owner's close and `auto_close_at`; an expired request has lost its documents and stays EXPIRED.
    close: { from: allBut('EXPIRED'), to: 'CLOSED' },
  },
} satisfies StateTable<RequestState, RequestTrigger, TransitionContext>;

/** The triggers whose target depends on the context: a caller cannot leave it out by mistake. */
type ContextTrigger = {
  [T in RequestTrigger]: (typeof REQUEST_STATE_TABLE)['moves'][T]['to'] extends string ? never : T;
}[RequestTrigger];

/** The state `trigger` moves a request to (`state` null: the request is being created), or a 422 `invalid_state`. */
export function transition(state: RequestState | null, trigger: Exclude<RequestTrigger, ContextTrigger>): RequestState;
export function transition(
  state: RequestState | null,
  trigger: RequestTrigger,
  context: TransitionContext,
): RequestState;
export function transition(
  state: RequestState | null,
  trigger: RequestTrigger,
  context?: TransitionContext,
): RequestState {
  // Only the context triggers' functions read it, and the overloads make their callers pass it.
  return nextState<RequestState, RequestTrigger, TransitionContext>(REQUEST_STATE_TABLE, state, trigger, context!);
}
