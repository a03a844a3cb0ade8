import { AppError } from '../../src/kernel/errors/app-error';
import { ITEM_STATUSES, type ItemStatus } from '../../src/modules/items/item.enums';
import { ITEM_TRIGGERS, itemTransition, type ItemTrigger } from '../../src/modules/items/item.states';
import { REQUEST_STATES, type RequestState } from '../../src/modules/requests/request.enums';
import { REQUEST_TRIGGERS, transition, type RequestTrigger } from '../../src/modules/requests/request.states';

// The expectations are API-DECISIONS' "States" table written out again by hand, not read from the
// code under test: a change to one without the other fails here.

const STATES: RequestState[] = [
  'PRE_LINK_GENERATED',
  'INCOMPLETE_AND_FRESHLY_GENERATED',
  'INCOMPLETE_AND_LINK_GENERATED',
  'INCOMPLETE_AND_LINK_SENT',
  'PARTIALLY_SUBMITTED',
  'REJECTED',
  'SUBMITTED',
  'UPDATED_AND_SUBMITTED',
  'EXPIRATION_EMAIL_SENT',
  'COMPLETE_AND_SUBMITTED',
  'VERIFIED',
  'EXPIRED',
  'CLOSED',
];
// "Open is every state before a submission plus REJECTED and EXPIRATION_EMAIL_SENT."
const OPEN: RequestState[] = [
  'PRE_LINK_GENERATED',
  'INCOMPLETE_AND_FRESHLY_GENERATED',
  'INCOMPLETE_AND_LINK_GENERATED',
  'INCOMPLETE_AND_LINK_SENT',
  'REJECTED',
  'EXPIRATION_EMAIL_SENT',
];
const SUBMITTED: RequestState[] = [
  'PARTIALLY_SUBMITTED',
  'SUBMITTED',
  'UPDATED_AND_SUBMITTED',
  'COMPLETE_AND_SUBMITTED',
];

const REFUSED = 'refused';

/** The table's answer for one case; `state` null is a request being created. */
function expected(
  state: RequestState | null,
  trigger: RequestTrigger,
  submittedBefore: boolean,
): RequestState | typeof REFUSED {
  const from = (states: RequestState[], to: RequestState) => (state !== null && states.includes(state) ? to : REFUSED);
  switch (trigger) {
    case 'create':
      return state === null ? 'INCOMPLETE_AND_LINK_SENT' : REFUSED;
    case 'create-skip-notification':
      return state === null ? 'INCOMPLETE_AND_LINK_GENERATED' : REFUSED;
    case 'create-draft':
      return state === null ? 'PRE_LINK_GENERATED' : REFUSED;
    case 'send-draft':
      return from(['PRE_LINK_GENERATED'], 'INCOMPLETE_AND_LINK_SENT');
    case 'regenerate-link':
      return from(OPEN, submittedBefore ? state! : 'INCOMPLETE_AND_FRESHLY_GENERATED');
    case 'submit-complete':
      return from(OPEN, 'COMPLETE_AND_SUBMITTED');
    case 'submit-required-complete':
      return from(OPEN, submittedBefore ? 'UPDATED_AND_SUBMITTED' : 'SUBMITTED');
    case 'submit-partial':
      return from(OPEN, 'PARTIALLY_SUBMITTED');
    case 'reject':
      return from(SUBMITTED, 'REJECTED');
    case 'verify':
      return from(SUBMITTED, 'VERIFIED');
    case 'expiration-warning':
      return from(OPEN, 'EXPIRATION_EMAIL_SENT');
    case 'expire':
      return from(
        STATES.filter((s) => s !== 'CLOSED'),
        'EXPIRED',
      );
    case 'close':
      return from(
        STATES.filter((s) => s !== 'EXPIRED'),
        'CLOSED',
      );
  }
}

const TRIGGERS: RequestTrigger[] = [
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
];

const outcome = (run: () => string): string => {
  try {
    return run();
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION' && err.userErrors[0]?.code === 'INVALID_STATE')
      return REFUSED;
    throw err;
  }
};

describe('request state table', () => {
  it('should know the 13 states and the triggers of API-DECISIONS', () => {
    expect([...REQUEST_STATES].sort()).toEqual([...STATES].sort());
    expect([...REQUEST_TRIGGERS].sort()).toEqual([...TRIGGERS].sort());
  });

  const cases = [null, ...STATES].flatMap((state) =>
    TRIGGERS.flatMap((trigger) => [false, true].map((submittedBefore) => ({ state, trigger, submittedBefore }))),
  );

  it.each(cases)('$trigger from $state (submitted before: $submittedBefore)', ({ state, trigger, submittedBefore }) => {
    expect(outcome(() => transition(state, trigger, { submittedBefore }))).toBe(
      expected(state, trigger, submittedBefore),
    );
  });

  it('should refuse with a 422 invalid_state that names the trigger and the state', () => {
    expect(() => transition('EXPIRED', 'close')).toThrow('close is not allowed from request state EXPIRED');
    expect(() => transition('CLOSED', 'close')).not.toThrow();
  });
});

describe('item status table', () => {
  // INCOMPLETE → COMPLETE (uploaded, answered, signed, not applicable) → VERIFIED; REJECTED by a
  // rejection, COMPLETE again when redone. Verifying needs only the item (spec section 3).
  const EXPECTED: Record<ItemTrigger, Partial<Record<ItemStatus, ItemStatus>>> = {
    complete: { INCOMPLETE: 'COMPLETE', COMPLETE: 'COMPLETE', REJECTED: 'COMPLETE' },
    undo: { COMPLETE: 'INCOMPLETE' },
    verify: { INCOMPLETE: 'VERIFIED', COMPLETE: 'VERIFIED', REJECTED: 'VERIFIED', VERIFIED: 'VERIFIED' },
    reject: { INCOMPLETE: 'REJECTED', COMPLETE: 'REJECTED', REJECTED: 'REJECTED', VERIFIED: 'REJECTED' },
  };

  it('should know every trigger', () => {
    expect([...ITEM_TRIGGERS].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  const cases = ITEM_STATUSES.flatMap((status) => ITEM_TRIGGERS.map((trigger) => ({ status, trigger })));

  it.each(cases)('$trigger from $status', ({ status, trigger }) => {
    expect(outcome(() => itemTransition(status, trigger))).toBe(EXPECTED[trigger][status] ?? REFUSED);
  });
});
