import { useEffect, useState } from 'react';
import { graphql } from '../../../generated/console';
import type { ConsoleRequestsQuery, RequestState } from '../../../generated/console/graphql';
import { isDone } from '../../../modules/items/item.progress';
import { REQUEST_STATES } from '../../../modules/requests/request.enums';
import { personName, STATE_LABELS } from '../../shared/labels';
import { useLive, useQuery, useTitle } from '../hooks';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Alert, formatDate, ItemStatus, Loading, Page, ProgressBar, StateBadge } from '../ui';

// The requests: counts by state, filters (state, owner, team, a search by name or recipient), pages of
// 20, latest activity first; live: any event of the organization reads the page and the counts again.

const PAGE_SIZE = 20;

const RequestsDocument = graphql(`
  query ConsoleRequests($first: Int, $after: String, $last: Int, $before: String, $filter: RequestFilter) {
    requests(
      first: $first
      after: $after
      last: $last
      before: $before
      filter: $filter
      orderBy: { field: UPDATED_AT, direction: DESC }
    ) {
      totalCount
      totalCountEstimated
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      nodes {
        id
        name
        state
        percentComplete
        updatedAt
        dueDate
        owner {
          id
          email
          firstName
          lastName
        }
        team {
          id
          name
        }
        recipients {
          id
          firstName
          lastName
          email
          phone
        }
        items {
          id
          name
          status
          isNa
          required
        }
      }
    }
  }
`);

// One count per state, each narrowed by the list's other filters (aliases: a document of fixed text).
const CountsDocument = graphql(`
  query ConsoleRequestCounts($ownerIds: [ID!], $teamIds: [ID!], $search: String) {
    PRE_LINK_GENERATED: requests(
      first: 1
      filter: { states: [PRE_LINK_GENERATED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    INCOMPLETE_AND_FRESHLY_GENERATED: requests(
      first: 1
      filter: { states: [INCOMPLETE_AND_FRESHLY_GENERATED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    INCOMPLETE_AND_LINK_GENERATED: requests(
      first: 1
      filter: { states: [INCOMPLETE_AND_LINK_GENERATED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    INCOMPLETE_AND_LINK_SENT: requests(
      first: 1
      filter: { states: [INCOMPLETE_AND_LINK_SENT], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    PARTIALLY_SUBMITTED: requests(
      first: 1
      filter: { states: [PARTIALLY_SUBMITTED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    REJECTED: requests(
      first: 1
      filter: { states: [REJECTED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    SUBMITTED: requests(
      first: 1
      filter: { states: [SUBMITTED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    UPDATED_AND_SUBMITTED: requests(
      first: 1
      filter: { states: [UPDATED_AND_SUBMITTED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    EXPIRATION_EMAIL_SENT: requests(
      first: 1
      filter: { states: [EXPIRATION_EMAIL_SENT], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    COMPLETE_AND_SUBMITTED: requests(
      first: 1
      filter: { states: [COMPLETE_AND_SUBMITTED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    VERIFIED: requests(
      first: 1
      filter: { states: [VERIFIED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    EXPIRED: requests(
      first: 1
      filter: { states: [EXPIRED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
    CLOSED: requests(
      first: 1
      filter: { states: [CLOSED], ownerIds: $ownerIds, teamIds: $teamIds, search: $search }
    ) {
      totalCount
    }
  }
`);

const PeopleDocument = graphql(`
  query ConsolePeople {
    organization {
      users(first: 100) {
        nodes {
          id
          email
          firstName
          lastName
        }
      }
      teams {
        id
        name
      }
    }
  }
`);

const LiveDocument = graphql(`
  subscription ConsoleRequestsLive {
    events {
      eventId
      topic
    }
  }
`);

type ListedRequest = ConsoleRequestsQuery['requests']['nodes'][number];

/** The states counted: those with requests, and the main road of a request even when empty. */
const ALWAYS_COUNTED = new Set([
  'INCOMPLETE_AND_LINK_SENT',
  'PARTIALLY_SUBMITTED',
  'SUBMITTED',
  'COMPLETE_AND_SUBMITTED',
  'VERIFIED',
]);

function RequestCard({ request }: { request: ListedRequest }) {
  const done = request.items.filter(isDone).length;
  return (
    <li className="request" data-id={request.id} data-state={request.state}>
      <div className="request-head">
        <Link className="request-name" to={`/app/requests/${request.id}`}>
          {request.name}
        </Link>
        <StateBadge state={request.state} />
      </div>
      <ProgressBar percent={request.percentComplete} label={`${request.name}: complete`} />
      <ul className="recipients" aria-label="Recipients">
        {/* Every recipient works on all the request's items. */}
        {request.recipients.map((recipient) => (
          <li key={recipient.id} className="recipient" data-recipient={recipient.id}>
            <span className="recipient-name">{personName(recipient)}</span>
            <span className="recipient-progress">
              {done} of {request.items.length} items
            </span>
          </li>
        ))}
      </ul>
      <ul className="items" aria-label="Items">
        {request.items.map((item) => (
          <li key={item.id} className="item-chip" title={item.name}>
            <ItemStatus status={item.status} isNa={item.isNa} /> {item.name}
          </li>
        ))}
      </ul>
      <div className="request-meta">
        {personName(request.owner, request.owner.email)}
        {request.team && ` · ${request.team.name}`} · updated {formatDate(request.updatedAt)}
        {request.dueDate && ` · due ${formatDate(request.dueDate)}`}
      </div>
    </li>
  );
}

export function RequestsScreen() {
  useTitle('Requests');
  const { query } = useLocation();
  const state = query.get('state') ?? '';
  const owner = query.get('owner') ?? '';
  const team = query.get('team') ?? '';
  const search = query.get('q') ?? '';
  const after = query.get('after');
  const before = query.get('before');
  const [typed, setTyped] = useState(search);

  const go = (changes: Record<string, string | null>, replace = false) =>
    navigate(
      withQuery('/app/requests', {
        state,
        owner,
        team,
        q: search,
        // A filter change starts at the first page.
        after: null,
        before: null,
        ...changes,
      }),
      { replace },
    );

  // The search follows typing after a pause, without a history entry per letter.
  useEffect(() => {
    if (typed === search) return;
    const timer = window.setTimeout(() => go({ q: typed.trim() || null }, true), 350);
    return () => window.clearTimeout(timer);
    // Only the typed text starts the wait.
  }, [typed]);

  const filter = {
    states: state ? [state as RequestState] : null,
    ownerIds: owner ? [owner] : null,
    teamIds: team ? [team] : null,
    search: search || null,
  };
  const list = useQuery(RequestsDocument, {
    filter,
    ...(before ? { last: PAGE_SIZE, before } : { first: PAGE_SIZE, after }),
  });
  const counts = useQuery(CountsDocument, {
    ownerIds: filter.ownerIds,
    teamIds: filter.teamIds,
    search: filter.search,
  });
  const people = useQuery(PeopleDocument, {});
  useLive(LiveDocument, {}, () => {
    list.reload();
    counts.reload();
  });

  const page = list.data?.requests;
  const countValues = counts.data as Record<string, { totalCount: number }> | null;
  return (
    <Page
      title="Requests"
      actions={
        <Link className="button" to="/app/requests/new">
          New request
        </Link>
      }
    >
      <section aria-labelledby="counts-title">
        <h2 id="counts-title">By state</h2>
        <ul id="counts" className="counts">
          {REQUEST_STATES.filter(
            (s) => ALWAYS_COUNTED.has(s) || (countValues?.[s]?.totalCount ?? 0) > 0 || s === state,
          ).map((s) => (
            <li key={s} className={`count state-${s}`} data-state={s}>
              <button
                type="button"
                aria-pressed={state === s}
                onClick={() => go({ state: state === s ? null : s })}
                title={state === s ? 'Show every state' : `Show only ${STATE_LABELS[s]}`}
              >
                <span className="count-value">{countValues?.[s]?.totalCount ?? '…'}</span>
                <span className="count-label">{STATE_LABELS[s]}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>

      <form className="filters" role="search" aria-label="Filter the requests" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="filter-search">Name or recipient</label>
          <input
            id="filter-search"
            type="search"
            value={typed}
            maxLength={200}
            placeholder="Search"
            onChange={(event) => setTyped(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') go({ q: typed.trim() || null });
            }}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-state">State</label>
          <select id="filter-state" value={state} onChange={(event) => go({ state: event.target.value || null })}>
            <option value="">Any state</option>
            {REQUEST_STATES.map((s) => (
              <option key={s} value={s}>
                {STATE_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-owner">Owner</label>
          <select id="filter-owner" value={owner} onChange={(event) => go({ owner: event.target.value || null })}>
            <option value="">Anyone</option>
            {people.data?.organization.users.nodes.map((user) => (
              <option key={user.id} value={user.id}>
                {personName(user, user.email)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-team">Team</label>
          <select id="filter-team" value={team} onChange={(event) => go({ team: event.target.value || null })}>
            <option value="">Any team</option>
            {people.data?.organization.teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        {(state || owner || team || search) && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setTyped('');
              go({ state: null, owner: null, team: null, q: null });
            }}
          >
            Clear filters
          </button>
        )}
      </form>

      <Alert>{list.error?.message}</Alert>
      <section aria-labelledby="list-title" aria-busy={list.loading}>
        <h2 id="list-title">
          {page ? `${page.totalCountEstimated ? 'About ' : ''}${page.totalCount} ` : ''}
          {page?.totalCount === 1 ? 'request' : 'requests'} <small>latest activity first</small>
        </h2>
        {!page ? (
          <Loading />
        ) : page.nodes.length === 0 ? (
          <p className="empty">
            {state || owner || team || search ? 'No request matches these filters.' : 'No requests yet.'}{' '}
            <Link to="/app/requests/new">Create one</Link>.
          </p>
        ) : (
          <ol id="requests" className="requests">
            {page.nodes.map((request) => (
              <RequestCard key={request.id} request={request} />
            ))}
          </ol>
        )}
        {page && (page.pageInfo.hasPreviousPage || page.pageInfo.hasNextPage) && (
          <nav className="pager" aria-label="Pages">
            <button
              type="button"
              className="secondary"
              disabled={!page.pageInfo.hasPreviousPage}
              onClick={() =>
                navigate(
                  withQuery('/app/requests', { state, owner, team, q: search, before: page.pageInfo.startCursor }),
                )
              }
            >
              Newer
            </button>
            <button
              type="button"
              className="secondary"
              disabled={!page.pageInfo.hasNextPage}
              onClick={() =>
                navigate(withQuery('/app/requests', { state, owner, team, q: search, after: page.pageInfo.endCursor }))
              }
            >
              Older
            </button>
          </nav>
        )}
      </section>
    </Page>
  );
}
