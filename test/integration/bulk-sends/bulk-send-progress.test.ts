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

    // Each event committed with the counts of its transaction; the throttle shows there.
    const told = await t.db.rows<{ created: number }>(
      `select (data->>'created')::int as created from event
        where topic = 'bulk_send.progressed' and subject_id = ? order by created_at, seq`,
      [id],
    );
    expect(told.length).toBeGreaterThanOrEqual(2);
    told.forEach(({ created }, i) => {
      const step = created - (told[i - 1]?.created ?? 0);
      expect(step).toBeGreaterThan(0);
      expect(step).toBeLessThanOrEqual(BULK_SEND_PROGRESS_ROWS);
    });
    expect(told.length).toBeLessThanOrEqual(
      Math.floor(ROWS / BULK_SEND_PROGRESS_ROWS) + Math.ceil(elapsed / BULK_SEND_PROGRESS_MS),
    );
    // The subscriber got each of them, in order; a message shows the record as it reads when sent (docs/graphql.md),
    // so its counts may be ahead of its event's.
    let last = 0;
    for (let i = 0; i < told.length; i++) {
      const { data } = await progressed.next();
      expect(data!.bulkSendProgressed).toMatchObject({ id, total: ROWS });
      expect(data!.bulkSendProgressed.created).toBeGreaterThanOrEqual(Math.max(last, told[i].created));
      last = data!.bulkSendProgressed.created;
    }
    expect(progressed.pending()).toBe(0);
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
