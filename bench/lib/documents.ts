import { RequestListDocument } from '../../src/generated/operations';
import { sourceOf } from '../../src/kernel/rest/operations';

// What the scenarios send. The GraphQL documents select the same fields the bare baseline returns,
// so both produce the same JSON (checked before every run, see checks.ts).

export const REQUEST_FIELDS = `
      id
      name
      state
      dueDate
      createdAt
      updatedAt
      percentComplete
      owner {
        id
        email
        firstName
        lastName
      }
      items {
        id
        kind
        name
        description
        required
        status
      }
      recipients {
        id
        firstName
        lastName
        email
        phone
        authMethod
      }`;

/** Scenarios 1, 2 and 6: a page of requests with items, recipients and owner. */
export const LIST_QUERY = `query BenchRequestList($first: Int!) {
  requests(first: $first) {
    nodes {${REQUEST_FIELDS}
    }
  }
}`;

/**
 * The same page for PostGraphile (issue 14's peer), in its default inflection: the organization's 20
 * newest requests that are not deleted, with owner, items (not deleted) and recipients in position
 * order, and the same fields (PostGraphile names the item's kind `type`, its column).
 */
export const PEER_LIST_QUERY = `query PeerRequestList($organizationId: UUID!, $first: Int!) {
  allRequests(first: $first, orderBy: [CREATED_AT_DESC, ID_DESC], condition: { organizationId: $organizationId, deletedAt: null }) {
    nodes {
      id
      name
      state
      dueDate
      createdAt
      updatedAt
      appUserByOwnerId {
        id
        email
        firstName
        lastName
      }
      requestItemsByRequestId(orderBy: [POSITION_ASC], condition: { deletedAt: null }) {
        nodes {
          id
          type
          name
          description
          required
          status
        }
      }
      recipientsByRequestId(orderBy: [POSITION_ASC]) {
        nodes {
          id
          firstName
          lastName
          email
          phone
          authMethod
        }
      }
    }
  }
}`;

/** Scenario 3: one request by id, with the same fields. */
export const GET_QUERY = `query BenchRequestGet($id: ID!) {
  request(id: $id) {${REQUEST_FIELDS}
  }
}`;

/**
 * Scenario 4's baseline: the very document the REST row GET /requests runs in-process (taken from the
 * row's own .graphql file), with the variables the row builds for `?limit=20`.
 */
export const REST_LIST_DOCUMENT = sourceOf(RequestListDocument);
export const REST_LIST_VARIABLES = { first: 20, orderBy: { field: 'CREATED_AT', direction: 'DESC' }, filter: null };

/** Scenario 5: the body of POST /requests, 3 items and 2 recipients; `n` makes the recipients new people. */
export function createBody(n: number, tag: string) {
  return {
    name: `Bench created request ${tag}-${n}`,
    personal_message: 'Please upload the documents below.',
    recipients: [
      { email: `new-${tag}-${n}-a@bench.example`, first_name: 'Ada', last_name: 'Lovelace' },
      { email: `new-${tag}-${n}-b@bench.example`, first_name: 'Alan', last_name: 'Turing', phone: '+1 555 0100' },
    ],
    items: [
      { name: 'Passport or national ID', type: 'UPLOAD', required: true },
      // An upload: an E_SIGNATURE item needs a contract of the organization (the bare server checks none).
      { name: 'Signed engagement letter', type: 'UPLOAD' },
      { name: 'What is your date of birth?', type: 'QUESTION', question: { type: 'TEXT' } },
    ],
  };
}
export type CreateBody = ReturnType<typeof createBody>;

/** The `users` group's create (issue 15): `items` items (up to 5; the first 3 as createBody's), 2 new recipients. */
export function createBodyWithItems(n: number, tag: string, items: number) {
  const body = createBody(n, tag);
  const more = [
    {
      name: 'Proof of address',
      type: 'UPLOAD',
      required: false,
      description: 'A utility bill, less than 3 months old',
    },
    { name: 'How many employees do you have?', type: 'QUESTION', question: { type: 'TEXT' } },
  ];
  return { ...body, items: [...body.items, ...more].slice(0, items) };
}

/**
 * The `users` group's page (issue 15): the 20 newest requests with the fields users compared, the
 * same as LIST_QUERY without percentComplete.
 */
export const USERS_LIST_QUERY = `query UsersRequestList($first: Int!) {
  requests(first: $first) {
    nodes {${REQUEST_FIELDS.replace('\n      percentComplete', '')}
    }
  }
}`;
