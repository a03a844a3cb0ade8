import { client, createTenant } from '../../support/app';
import { listeningGraphqlApp, subscribe, untilSubscribed, type ListeningGraphqlApp } from '../../support/ws';
import { BULK_SEND_PROGRESS_MS, BULK_SEND_PROGRESS_ROWS } from '../../../src/modules/bulk-sends/bulk-send.limits';

type Counts = { id: string; status: string; total: number; created: number; failed: number };

const FIELDS = 'id status total created failed';
const ROWS = 2 * BULK_SEND_PROGRESS_ROWS + 20;

describe('bulk send progress (graphql-ws)', () => {
  let served: ListeningGraphqlApp;

  beforeAll(async () => {
    served = await listeningGraphqlApp();
  });
  afterAll(() => served.close());

  it('should stream a bulk send’s counts, throttled, then its end, to its organization only', async () => {
    const { t, acme } = served;
    const api = client(t.app, acme.apiKey);
    const template = await api.post('/templates', {
      name: 'Season',
      default_title: 'Tax documents',
      items: [{ name: 'W-2', type: 'UPLOAD', required: true }],
    });
    const rows = Array.from({ length: ROWS }, (_, i) => ({ email: `client${i}@example.com` }));
    const sent = await api.post(`/templates/${template.json().id}/bulk-sends`, { rows });
    expect(sent.statusCode).toBe(202);
    const other = await api.post(`/templates/${template.json().id}/bulk-sends`, { rows: rows.slice(0, 1) });
    const { id } = sent.json();

    const owner = served.connect(acme.apiKey);
    const progressed = subscribe<{ bulkSendProgressed: Counts }>(
      owner,
      `subscription ($id: ID!) { bulkSendProgressed(id: $id) { ${FIELDS} } }`,
      { id },
    );
    const completed = subscribe<{ bulkSendCompleted: Counts }>(
      owner,
      `subscription ($id: ID!) { bulkSendCompleted(id: $id) { ${FIELDS} } }`,
      { id },
    );
    // Another organization's admin asking for the same id hears nothing.
    const globex = subscribe(
      served.connect((await createTenant(t.db, 'Globex')).apiKey),
      `subscription ($id: ID!) { bulkSendCompleted(id: $id) { id } }`,
      { id },
    );
    await untilSubscribed(() => t.app.subscriptions.subscriberCount, 3);

    const started = Date.now();
    await t.app.jobs.runDue();
    const elapsed = Date.now() - started;

    const end = (await completed.next(10_000)).data!.bulkSendCompleted;
    expect(end).toEqual({ id, status: 'COMPLETED', total: ROWS, created: ROWS, failed: 0 });
    // The other bulk send ended too, unheard here: this one's end is the only one.
    expect(completed.pending()).toBe(0);
    expect((await api.get(`/bulk-sends/${other.json().id}`)).json().status).toBe('COMPLETED');

    const counts: number[] = [];
    while (progressed.pending() > 0) {
      const { data } = await progressed.next();
      expect(data!.bulkSendProgressed).toMatchObject({ id, status: 'RUNNING', total: ROWS });
      counts.push(data!.bulkSendProgressed.created);
    }
    // Counts only grow, at most BULK_SEND_PROGRESS_ROWS apart, and no more often than the throttle lets them.
    expect(counts.length).toBeGreaterThanOrEqual(2);
    counts.forEach((count, i) => {
      const step = count - (counts[i - 1] ?? 0);
      expect(step).toBeGreaterThan(0);
      expect(step).toBeLessThanOrEqual(BULK_SEND_PROGRESS_ROWS);
    });
    expect(counts.length).toBeLessThanOrEqual(
      Math.floor(ROWS / BULK_SEND_PROGRESS_ROWS) + Math.ceil(elapsed / BULK_SEND_PROGRESS_MS),
    );
    expect(globex.pending()).toBe(0);
  }, 60_000);

  it('should refuse a subscription without the bulk send’s id (coded error)', async () => {
    const outcome = subscribe(served.connect(served.acme.apiKey), 'subscription { bulkSendProgressed { id } }');
    for (let waited = 0; !outcome.failure && waited < 3000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(outcome.failure).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('argument "id" of type "ID!" is required'),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
  });
});
