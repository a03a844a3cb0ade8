import { createClient, type Client } from 'graphql-ws';
import { isDone } from '../../modules/items/item.progress';
import { REQUEST_STATES } from '../../modules/requests/request.enums';
import { personName, STATE_LABELS } from '../shared/labels';

// The live dashboard in the browser (bundled by esbuild, served by Gather: docs/graphql.md, the dashboard). It
// reads a snapshot over GraphQL HTTP, then follows `Subscription.events` over graphql-ws; after a
// dropped connection it asks `Query.requestEvents` for what committed since the last event it saw
// (from a few seconds before it, deduplicating on eventId), so the page ends up as the server is.

const KEY_STORAGE = 'gather.dashboard.key';
/** Events committed this long before the last one seen may still be missing (a late commit). */
const CATCH_UP_MARGIN_MS = 10_000;
const CHART_DAYS = 14;
const FEED_SIZE = 40;
const PAGE = 100;

// The one list of the spec's states (a plain module, so esbuild bundles it with the page).
const STATES = REQUEST_STATES;

const REQUEST_FIELDS = `fragment DashboardRequest on Request {
  id name state percentComplete createdAt updatedAt dueDate
  recipients { id firstName lastName email phone }
  items { id name kind status isNa required }
}`;

const EVENT_FIELDS = `eventId topic createdAt
  ... on RequestEvent { updated request { ...DashboardRequest } }
  ... on ItemEvent { item { name request { ...DashboardRequest } } }
  ... on DocumentEvent { document { name request { ...DashboardRequest } } }`;

const SUBSCRIPTION = `subscription DashboardEvents { events { ${EVENT_FIELDS} } } ${REQUEST_FIELDS}`;

// The log answers every event as a RequestEvent: the request it happened on, as it is now.
const EVENT_PAGE = `query DashboardEventPage($since: DateTime, $after: String, $topics: [WebhookTopic!]) {
  requestEvents(since: $since, after: $after, topics: $topics, first: ${PAGE}) {
    nodes { eventId topic createdAt updated request { ...DashboardRequest } } hasNextPage endCursor
  }
} ${REQUEST_FIELDS}`;

const SNAPSHOT = `query DashboardSnapshot {
  organization { name }
  viewer { firstName lastName email }
  requests(first: ${PAGE}, orderBy: { field: UPDATED_AT, direction: DESC }) { nodes { ...DashboardRequest } }
} ${REQUEST_FIELDS}`;

const COUNTS = `query DashboardCounts { ${STATES.map((state) => `${state}: requests(filter: { states: [${state}] }, first: 1) { totalCount }`).join(' ')} }`;

type Recipient = {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
};
type Item = {
  id: string;
  name: string;
  kind: string;
  status: string;
  isNa: boolean;
  required: boolean;
};
type Request = {
  id: string;
  name: string;
  state: string;
  percentComplete: number;
  createdAt: string;
  updatedAt: string;
  dueDate: string | null;
  recipients: Recipient[];
  items: Item[];
};
type Event = {
  eventId: string;
  topic: string;
  createdAt: string;
  updated?: string[];
  request?: Request;
  item?: { name: string; request: Request };
  document?: { name: string; request: Request };
};
type EventPage = { nodes: Event[]; hasNextPage: boolean; endCursor: string | null };

class Unauthorized extends Error {}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const topicLabel = (topic: string) => topic.toLowerCase().replace('_', '.');
const dayKey = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
const time = (iso: string) =>
  new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** What the page shows, kept in step with the server. */
class Board {
  readonly requests = new Map<string, Request>();
  /** When each request last had an event (or was last updated), for the list's order. */
  readonly activity = new Map<string, number>();
  readonly seen = new Set<string>();
  readonly feed: Event[] = [];
  readonly completions = new Map<string, number>();
  counts: Record<string, number> = {};
  lastEventAt: number | null = null;

  /** A request as read by the server; an older read never replaces a newer one. */
  keep(request: Request): void {
    const known = this.requests.get(request.id);
    if (known && Date.parse(known.updatedAt) > Date.parse(request.updatedAt)) return;
    this.requests.set(request.id, request);
    this.activity.set(request.id, Math.max(this.activity.get(request.id) ?? 0, Date.parse(request.updatedAt)));
  }

  /** Applies one event once, whichever way it came (live or caught up); false when already applied. */
  apply(event: Event): boolean {
    if (this.seen.has(event.eventId)) return false;
    this.seen.add(event.eventId);
    const at = Date.parse(event.createdAt);
    this.lastEventAt = Math.max(this.lastEventAt ?? 0, at);
    const request = event.request ?? event.item?.request ?? event.document?.request;
    if (request) {
      if (event.topic === 'REQUEST_DELETED') {
        this.requests.delete(request.id);
      } else {
        this.keep(request);
        this.activity.set(request.id, Math.max(this.activity.get(request.id) ?? 0, at));
      }
    }
    if (event.topic === 'REQUEST_COMPLETED') this.countCompletion(event.createdAt);
    this.feed.unshift(event);
    this.feed.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
    this.feed.length = Math.min(this.feed.length, FEED_SIZE);
    return true;
  }

  countCompletion(iso: string): void {
    const key = dayKey(new Date(iso));
    this.completions.set(key, (this.completions.get(key) ?? 0) + 1);
  }

  ordered(): Request[] {
    return [...this.requests.values()].sort(
      (a, b) => (this.activity.get(b.id) ?? 0) - (this.activity.get(a.id) ?? 0) || a.name.localeCompare(b.name),
    );
  }
}

class Dashboard {
  private board = new Board();
  private ws?: Client;
  private unsubscribe?: () => void;
  private connectedOnce = false;
  private buffered: Event[] | null = null;
  private countsTimer?: number;

  constructor(private readonly key: string) {}

  private async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.key}` },
      body: JSON.stringify({ query, variables }),
    });
    if (response.status === 401) throw new Unauthorized('This API key was not accepted');
    const body = (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
    if (body.errors?.length) throw new Error(body.errors[0].message);
    return body.data as T;
  }

  async start(): Promise<void> {
    status('Connecting…', 'pending');
    // The key is checked over HTTP first: a refused key is said plainly, not retried forever.
    await this.graphql<{ viewer: unknown }>('{ viewer { id } }');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
    this.ws = createClient({
      url,
      connectionParams: () => ({ authorization: `Bearer ${this.key}` }),
      lazy: false,
      keepAlive: 10_000,
      retryAttempts: Number.MAX_SAFE_INTEGER,
      shouldRetry: (event) =>
        !(event && typeof event === 'object' && 'code' in event && (event as CloseEvent).code === 4403),
      retryWait: (retries) =>
        new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** retries, 5000) * (0.75 + Math.random() / 2))),
      on: {
        connected: () => void this.onConnected(),
        closed: () => status('Connection lost: reconnecting…', 'down'),
      },
    });
    this.unsubscribe = this.ws.subscribe<{ events: Event }>(
      { query: SUBSCRIPTION },
      {
        next: (message) => {
          if (message.errors?.length) return status(message.errors[0].message, 'down');
          if (message.data) this.receive(message.data.events);
        },
        error: (err) => status(err instanceof Error ? err.message : 'The server refused the subscription', 'down'),
        complete: () => undefined,
      },
    );
  }

  stop(): void {
    this.unsubscribe?.();
    void this.ws?.dispose();
    window.clearTimeout(this.countsTimer);
  }

  private receive(event: Event): void {
    if (this.buffered) {
      this.buffered.push(event);
      return;
    }
    if (this.board.apply(event)) {
      render(this.board);
      this.refreshCounts();
    }
  }

  private async onConnected(): Promise<void> {
    const first = !this.connectedOnce;
    this.connectedOnce = true;
    try {
      if (first) await this.loadSnapshot();
      else await this.catchUp();
      status('Live', 'up');
    } catch (err) {
      status(err instanceof Error ? err.message : String(err), 'down');
    }
  }

  /** Everything at once, read after the subscription is open so no event falls between the two. */
  private async loadSnapshot(): Promise<void> {
    this.buffered = [];
    try {
      const since = new Date(Date.now() - CHART_DAYS * 86_400_000);
      since.setHours(0, 0, 0, 0);
      const [snapshot, completions, recent] = await Promise.all([
        this.graphql<{
          organization: { name: string };
          viewer: { firstName: string | null; lastName: string | null; email: string };
          requests: { nodes: Request[] };
        }>(SNAPSHOT),
        this.events({ since: since.toISOString(), topics: ['REQUEST_COMPLETED'] }),
        this.events({ since: new Date(Date.now() - 3_600_000).toISOString() }),
      ]);
      $('org').textContent =
        `${snapshot.organization.name} · ${[snapshot.viewer.firstName, snapshot.viewer.lastName].filter(Boolean).join(' ') || snapshot.viewer.email}`;
      for (const request of snapshot.requests.nodes) this.board.keep(request);
      for (const event of recent) this.board.apply(event);
      // Older completions count on the chart without joining the feed.
      for (const event of completions) {
        if (this.board.seen.has(event.eventId)) continue;
        this.board.seen.add(event.eventId);
        this.board.countCompletion(event.createdAt);
      }
      this.board.lastEventAt ??= Date.now();
      await this.loadCounts();
    } finally {
      const buffered = this.buffered ?? [];
      this.buffered = null;
      for (const event of buffered) this.board.apply(event);
      render(this.board);
    }
  }

  /** What committed while the connection was down, from a little before the last event seen. */
  private async catchUp(): Promise<void> {
    status('Catching up…', 'pending');
    const since = new Date((this.board.lastEventAt ?? Date.now()) - CATCH_UP_MARGIN_MS).toISOString();
    for (const event of await this.events({ since })) this.board.apply(event);
    await this.loadCounts();
    render(this.board);
  }

  private async events(variables: { since: string; topics?: string[] }): Promise<Event[]> {
    const all: Event[] = [];
    let after: string | null = null;
    do {
      const page: { requestEvents: EventPage } = await this.graphql(EVENT_PAGE, { ...variables, after });
      all.push(...page.requestEvents.nodes);
      after = page.requestEvents.hasNextPage ? page.requestEvents.endCursor : null;
    } while (after);
    return all;
  }

  private async loadCounts(): Promise<void> {
    const counts = await this.graphql<Record<string, { totalCount: number }>>(COUNTS);
    this.board.counts = Object.fromEntries(STATES.map((state) => [state, counts[state].totalCount]));
  }

  /** Counts are the server's (every request, not only those listed); a burst of events asks once. */
  private refreshCounts(): void {
    window.clearTimeout(this.countsTimer);
    this.countsTimer = window.setTimeout(() => {
      this.loadCounts()
        .then(() => render(this.board))
        .catch(() => undefined);
    }, 150);
  }
}

function status(text: string, kind: 'up' | 'down' | 'pending'): void {
  const node = $('status');
  node.textContent = text;
  node.dataset.state = kind;
}

function renderCounts(board: Board): void {
  const list = $('counts');
  list.replaceChildren(
    ...STATES.filter(
      (state) =>
        board.counts[state] ||
        ['INCOMPLETE_AND_LINK_SENT', 'PARTIALLY_SUBMITTED', 'SUBMITTED', 'COMPLETE_AND_SUBMITTED', 'VERIFIED'].includes(
          state,
        ),
    ).map((state) => {
      const entry = element('li', `count state-${state}`);
      entry.dataset.state = state;
      entry.append(
        element('span', 'count-value', String(board.counts[state] ?? 0)),
        element('span', 'count-label', STATE_LABELS[state]),
      );
      return entry;
    }),
  );
}

function renderChart(board: Board): void {
  const days: Array<{ key: string; label: string; count: number }> = [];
  const today = new Date();
  for (let i = CHART_DAYS - 1; i >= 0; i--) {
    const day = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    days.push({
      key: dayKey(day),
      label: day.toLocaleDateString([], { day: 'numeric', month: 'short' }),
      count: board.completions.get(dayKey(day)) ?? 0,
    });
  }
  const max = Math.max(1, ...days.map((d) => d.count));
  // Drawn at the width it is shown at, so its text keeps its size on a phone.
  const width = Math.max(240, $('chart').clientWidth || 700);
  const [height, top, bottom] = [180, 22, 26];
  const step = width / days.length;
  const labelEvery = Math.ceil(52 / step);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `Completions per day, last ${CHART_DAYS} days: ${days.reduce((sum, d) => sum + d.count, 0)} in all`,
  });
  chart.append(svg('line', { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, class: 'axis' }));
  days.forEach((day, i) => {
    const barHeight = ((height - top - bottom) * day.count) / max;
    const x = i * step + step * 0.18;
    const group = svg('g', { class: 'day', 'data-day': day.key, 'data-count': day.count });
    group.append(
      svg('rect', {
        x,
        y: height - bottom - barHeight,
        width: step * 0.64,
        height: Math.max(barHeight, day.count ? 2 : 0),
        rx: 3,
      }),
    );
    if (day.count)
      group.append(
        svg('text', { x: x + step * 0.32, y: height - bottom - barHeight - 6, class: 'value' }, String(day.count)),
      );
    // Today's label ends at its bar, so it stays inside the chart.
    const last = i === days.length - 1;
    if ((days.length - 1 - i) % labelEvery === 0)
      group.append(
        svg(
          'text',
          { x: last ? width : x + step * 0.32, y: height - 8, class: last ? 'label today' : 'label' },
          day.label,
        ),
      );
    chart.append(group);
  });
  $('chart').replaceChildren(chart);
}

function renderFeed(board: Board): void {
  $('feed').replaceChildren(
    ...board.feed.map((event) => {
      const entry = element('li', 'event');
      entry.dataset.topic = event.topic;
      entry.dataset.event = event.eventId;
      const request = event.request ?? event.item?.request ?? event.document?.request;
      const subject = event.item
        ? ` · ${event.item.name}`
        : event.document
          ? ` · ${event.document.name}`
          : event.updated?.length
            ? ` · ${event.updated.join(', ')}`
            : '';
      entry.append(
        element('time', 'event-time', time(event.createdAt)),
        element('span', 'event-topic', topicLabel(event.topic)),
        element('span', 'event-subject', `${request?.name ?? ''}${subject}`),
      );
      return entry;
    }),
  );
  if (board.feed.length === 0) $('feed').append(element('li', 'empty', 'No events in the last hour yet.'));
}

function renderRequest(request: Request, lastActivity: number): HTMLLIElement {
  const entry = element('li', 'request');
  entry.dataset.id = request.id;
  entry.dataset.state = request.state;
  const head = element('div', 'request-head');
  head.append(
    element('span', 'request-name', request.name),
    element('span', `badge state-${request.state}`, STATE_LABELS[request.state] ?? request.state),
  );
  const progress = element('div', 'progress');
  const fill = element('div', 'progress-fill');
  // A CSSOM property, which the page's CSP allows (a style attribute it would not).
  fill.style.width = `${Math.max(0, Math.min(100, request.percentComplete))}%`;
  progress.append(fill);
  const percent = element('span', 'percent', `${Math.round(request.percentComplete)}%`);
  const recipients = element('ul', 'recipients');
  // Every recipient of a request works on all its items (an item's assignee is only its first recipient).
  const done = request.items.filter(isDone).length;
  for (const recipient of request.recipients) {
    const line = element('li', 'recipient');
    line.dataset.recipient = recipient.id;
    line.append(
      element('span', 'recipient-name', personName(recipient)),
      element('span', 'recipient-progress', `${done} of ${request.items.length} items`),
    );
    recipients.append(line);
  }
  const items = element('ul', 'items');
  for (const item of request.items) {
    const chip = element('li', `item status-${item.status}`, item.name);
    chip.dataset.status = item.status;
    chip.title = `${item.name}: ${item.status.toLowerCase()}${item.required ? ' (required)' : ''}`;
    items.append(chip);
  }
  const meta = element(
    'div',
    'request-meta',
    `Last activity ${time(new Date(lastActivity).toISOString())}${request.dueDate ? ` · due ${new Date(request.dueDate).toLocaleDateString()}` : ''}`,
  );
  const bar = element('div', 'request-progress');
  bar.append(progress, percent);
  entry.append(head, bar, recipients, items, meta);
  return entry;
}

function render(board: Board): void {
  shown = board;
  renderCounts(board);
  renderChart(board);
  renderFeed(board);
  const ordered = board.ordered();
  $('requests').replaceChildren(
    ...ordered.map((request) =>
      renderRequest(request, board.activity.get(request.id) ?? Date.parse(request.updatedAt)),
    ),
  );
  if (ordered.length === 0) $('requests').append(element('li', 'empty', 'No requests yet.'));
  $('request-count').textContent = String(ordered.length);
}

let dashboard: Dashboard | null = null;
let shown: Board | null = null;

// The chart is drawn to its width: drawn again when the window's width changes.
window.addEventListener('resize', () => shown && renderChart(shown));

function open(key: string): void {
  dashboard?.stop();
  $('connect').hidden = true;
  $('board').hidden = false;
  dashboard = new Dashboard(key);
  dashboard.start().catch((err: unknown) => {
    if (err instanceof Unauthorized) {
      sessionStorage.removeItem(KEY_STORAGE);
      close(err.message);
    } else status(err instanceof Error ? err.message : String(err), 'down');
  });
}

function close(message?: string): void {
  dashboard?.stop();
  dashboard = null;
  $('board').hidden = true;
  $('connect').hidden = false;
  $('key-error').textContent = message ?? '';
  status('Not connected', 'pending');
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>('key');
  const key = input.value.trim();
  if (!key) return;
  // Session storage only: the key is gone when the tab closes, and never leaves this origin.
  sessionStorage.setItem(KEY_STORAGE, key);
  input.value = '';
  open(key);
});

$('forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  close();
});

const stored = sessionStorage.getItem(KEY_STORAGE);
if (stored) open(stored);
