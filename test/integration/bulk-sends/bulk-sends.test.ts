import { client, createTenant, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { upload } from '../../support/files';
import { MAX_BULK_SEND_CSV_BYTES, MAX_BULK_SEND_ROWS } from '../../../src/modules/bulk-sends/bulk-send.limits';

type Api = ReturnType<typeof client>;

const row = (i: number, extra: Record<string, unknown> = {}) => ({
  first_name: `Ann ${i}`,
  last_name: 'Lee',
  email: `ann${i}@example.com`,
  language: 'fr',
  ...extra,
});

describe('bulk sends', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: Api;
  let templateId: string;

  const requestCount = async () => Number((await t.db.rows<{ n: string }>('select count(*) as n from request'))[0].n);
  const send = (rows: unknown[], id = templateId) => api.post(`/templates/${id}/bulk-sends`, { rows });

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp());
    const template = await api.post('/templates', {
      name: 'Onboarding',
      default_title: 'Welcome pack',
      personal_message: 'Hi!',
      items: [{ name: 'Passport', type: 'UPLOAD', required: true }],
    });
    expect(template.statusCode).toBe(200);
    templateId = template.json().id;
  });
  afterAll(() => t.close());

  it('POST should check every row first: a 422 names each bad row and field, and nothing is made', async () => {
    const response = await send([
      row(1),
      row(2, { email: 'not an address' }),
      row(3, { email: null, phone: null }),
      row(4, { name: 'x'.repeat(300), user_metadata: { k: 'v' } }),
    ]);
    expect(response.statusCode).toBe(422);
    const detail = response.json().detail as { loc: unknown[]; msg: string }[];
    expect(detail[0].loc).toEqual(['body', 'rows', 1, 'email']);
    expect(detail).toContainEqual(expect.objectContaining({ loc: ['body', 'rows', 3, 'name'] }));
    expect(new Set(detail.map((d) => d.loc[2]))).toEqual(new Set([1, 2, 3]));
    for (const d of detail) expect(d.msg).toMatch(new RegExp(`^Line ${Number(d.loc[2]) + 1}: `));
    expect(await requestCount()).toBe(0);
    expect((await t.db.rows('select 1 from bulk_send')).length).toBe(0);
  });

  it('POST should make a request per row with its overrides in a job, and GET should show the counts', async () => {
    const due = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const response = await send([
      row(1),
      row(2, { name: 'Custom', due_date: due, personal_message: 'Bonjour', user_metadata: { client: '42' } }),
    ]);
    expect(response.statusCode).toBe(202);
    const queued = response.json();
    expect(queued).toMatchObject({
      status: 'QUEUED',
      template_id: templateId,
      owner_id: tenant.userId,
      total: 2,
      created: 0,
      failed: 0,
      failures: [],
      completed_at: null,
    });
    await t.app.jobs.runDue();
    const done = (await api.get(`/bulk-sends/${queued.id}`)).json();
    expect(done).toMatchObject({ status: 'COMPLETED', total: 2, created: 2, failed: 0 });
    expect(done.completed_at).toEqual(expect.any(String));
    const requests = (await api.get('/requests?limit=10')).json();
    const custom = requests.find((r: { name: string }) => r.name === 'Custom');
    expect(custom).toMatchObject({ personal_message: 'Bonjour', user_metadata: { client: '42' }, due_date: due });
    expect(custom.recipients[0].recipient).toMatchObject({
      email: 'ann2@example.com',
      first_name: 'Ann 2',
      language: 'fr',
    });
    expect(requests.find((r: { name: string }) => r.name === 'Welcome pack').personal_message).toBe('Hi!');
    expect((await api.get('/bulk-sends')).json().map((b: { id: string }) => b.id)).toContain(queued.id);
  });

  it('POST …/csv should take a CSV file, user_metadata.<key> columns included, a request per line', async () => {
    const csv = [
      'first_name,last_name,email,phone,language,name,user_metadata.client',
      'Bo,Chan,bo@example.com,,de,"Bo, file",7',
      'Cy,Diaz,,+15551234567,,,',
    ].join('\n');
    const response = await upload(t.app, tenant.apiKey, `/templates/${templateId}/bulk-sends/csv`, Buffer.from(csv), {
      type: 'text/csv',
      filename: 'people.csv',
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ status: 'QUEUED', total: 2 });
    await t.app.jobs.runDue();
    expect((await api.get(`/bulk-sends/${response.json().id}`)).json()).toMatchObject({
      status: 'COMPLETED',
      created: 2,
    });
    const bo = (await api.get('/requests?limit=50')).json().find((r: { name: string }) => r.name === 'Bo, file');
    expect(bo.user_metadata).toEqual({ client: '7' });
    expect(bo.recipients[0].recipient).toMatchObject({ email: 'bo@example.com', language: 'de' });
  });

  it('POST …/csv should name the file line and field of every problem (422), making nothing; 413 past its size', async () => {
    const before = await requestCount();
    const csv = [
      'first_name,email,language,due_date',
      'Ok,ok@example.com,fr,',
      'Bad,nope,fr,',
      'Odd,odd@example.com,xx,tomorrow',
    ].join('\n');
    const response = await upload(t.app, tenant.apiKey, `/templates/${templateId}/bulk-sends/csv`, Buffer.from(csv));
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.map((d: { loc: unknown[]; msg: string }) => [d.loc, d.msg.split(':')[0]])).toEqual([
      [['body', 'rows', 2, 'language'], 'Line 4'],
      [['body', 'rows', 2, 'due_date'], 'Line 4'],
    ]);
    const second = await upload(
      t.app,
      tenant.apiKey,
      `/templates/${templateId}/bulk-sends/csv`,
      Buffer.from('first_name,email\nBad,nope\nUnknown,u@example.com'),
    );
    expect(second.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'rows', 0, 'email'], msg: expect.stringMatching(/^Line 2: /) }),
    ]);
    const unknown = await upload(
      t.app,
      tenant.apiKey,
      `/templates/${templateId}/bulk-sends/csv`,
      Buffer.from('mail\nx'),
    );
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0].msg).toMatch(/^Line 1: unknown column "mail"/);
    const big = await upload(
      t.app,
      tenant.apiKey,
      `/templates/${templateId}/bulk-sends/csv`,
      Buffer.alloc(MAX_BULK_SEND_CSV_BYTES + 1, 'a'),
    );
    expect(big.statusCode).toBe(413);
    expect(await requestCount()).toBe(before);
  });

  it('POST of the same template and rows again should answer the first bulk send (200), making nothing', async () => {
    const rows = [row(10), row(11)];
    const first = await send(rows);
    expect(first.statusCode).toBe(202);
    const again = await send(rows);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    await t.app.jobs.runDue();
    expect((await api.get(`/bulk-sends/${first.json().id}`)).json()).toMatchObject({ created: 2 });
    const other = await send([row(10)]);
    expect(other.statusCode).toBe(202);
    expect(other.json().id).not.toBe(first.json().id);
    await t.app.jobs.runDue();
  });

  it('POST should refuse more rows than the limit, an empty list, and another organization’s template', async () => {
    const tooMany = await send(Array.from({ length: MAX_BULK_SEND_ROWS + 1 }, (_, i) => row(i)));
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail[0]).toMatchObject({ loc: ['body', 'rows'], type: 'too_many' });
    expect((await send([])).statusCode).toBe(422);
    const globex = client(t.app, (await createTenant(t.db)).apiKey);
    const foreign = await globex.post(`/templates/${templateId}/bulk-sends`, { rows: [row(1)] });
    expect(foreign.statusCode).toBe(404);
    expect((await globex.get('/bulk-sends')).json()).toEqual([]);
  });

  /** Fails the transaction of the row at `line` as a crash would end it: the rows before it stay committed. */
  const crashAt = (line: number) =>
    t.db.transaction(async (tx) => {
      await tx.execute(`create function bulk_send_crash() returns trigger language plpgsql as $$
        begin if new.line = ${line} then raise exception 'simulated crash'; end if; return new; end $$`);
      await tx.execute(`create trigger bulk_send_crash before update of request_id on bulk_send_row
        for each row execute function bulk_send_crash()`);
    });

  /** Ends the crash, then runs the job again (as the queue retries it) beside a second copy (a worker wrongly thought dead). */
  async function resume(id: string): Promise<void> {
    await t.db.transaction(async (tx) => {
      await tx.execute('drop trigger bulk_send_crash on bulk_send_row');
      await tx.execute('drop function bulk_send_crash()');
      await tx.execute(
        `select graphile_worker.reschedule_jobs(array(select id from graphile_worker.jobs where task_identifier = 'bulk_send.run'), run_at => now())`,
      );
      await tx.execute(`select graphile_worker.add_job('bulk_send.run', json_build_object('bulkSendId', ?::text))`, [
        id,
      ]);
    });
    await t.app.jobs.runDue();
  }

  /** Requests made by a bulk send's rows, each counted once. */
  const requestsOf = async (id: string) =>
    Number(
      (
        await t.db.rows<{ n: string }>(
          `select count(distinct r.id) as n from bulk_send_row b join request r on r.id = b.request_id where b.bulk_send_id = ?`,
          [id],
        )
      )[0].n,
    );

  it('a run cut off halfway should resume without duplicates: exactly one request per row', async () => {
    const before = await requestCount();
    const response = await send(Array.from({ length: 6 }, (_, i) => row(100 + i)));
    const id = response.json().id;
    await crashAt(4);
    await t.app.jobs.runDue();
    expect((await api.get(`/bulk-sends/${id}`)).json()).toMatchObject({ status: 'RUNNING', created: 3 });
    expect(await requestCount()).toBe(before + 3);
    await resume(id);
    expect((await api.get(`/bulk-sends/${id}`)).json()).toMatchObject({ status: 'COMPLETED', created: 6, failed: 0 });
    expect(await requestCount()).toBe(before + 6);
    expect(await requestsOf(id)).toBe(6);
  });

  it('a row refused at creation (its template changed since) is counted as failed with its line', async () => {
    const response = await send([row(200), row(201, { name: null })]);
    const id = response.json().id;
    // The row's input was checked when sent; a template's title taken away since leaves nothing to call it.
    await t.db.transaction((tx) =>
      tx.execute(`update bulk_send_row set data = data || '{"name": "   "}' where bulk_send_id = ? and line = 2`, [id]),
    );
    await t.app.jobs.runDue();
    const done = (await api.get(`/bulk-sends/${id}`)).json();
    expect(done).toMatchObject({ status: 'COMPLETED', created: 1, failed: 1 });
    expect(done.failures).toEqual([{ line: 2, message: expect.stringContaining('non-blank') }]);
  });

  it(`GraphQL bulkSendCreate should refuse ${MAX_BULK_SEND_ROWS} rows with three bad ones whole, then take them all, resuming a run cut off in the middle`, async () => {
    const before = await requestCount();
    const rows = Array.from({ length: MAX_BULK_SEND_ROWS }, (_, i) => ({
      firstName: `P${i}`,
      email: `p${i}@example.com`,
      language: 'ES',
    }));
    const create = `mutation ($input: BulkSendCreateInput!) {
        bulkSendCreate(input: $input) { bulkSend { id status total } replayed userErrors { field message code } }
      }`;
    const bad = new Map<number, Record<string, unknown>>([
      [17, { email: 'nope' }],
      [500, { name: 'x'.repeat(300) }],
      [998, { email: null }],
    ]);
    const refused = await api.graphql(create, {
      input: { templateId, rows: rows.map((row, i) => ({ ...row, ...bad.get(i) })) },
    });
    expect(refused.data.bulkSendCreate.bulkSend).toBeNull();
    const lines = refused.data.bulkSendCreate.userErrors.map((e: { field: string[] }) => e.field[2]);
    expect(new Set(lines)).toEqual(new Set(['17', '500', '998']));
    expect(refused.errors).toBeUndefined();
    expect(await requestCount()).toBe(before);
    // Checking the rows reads what they share once: a thousand rows cost the statements of one.
    t.sql.reset();
    await api.graphql(create, { input: { templateId, rows: rows.slice(0, 1) } });
    const one = t.sql.count;
    t.sql.reset();
    const { data, errors } = await api.graphql(create, { input: { templateId, rows } });
    expect(errors).toBeUndefined();
    expect(t.sql.count).toBeLessThanOrEqual(one);
    expect(data.bulkSendCreate).toMatchObject({
      bulkSend: { status: 'QUEUED', total: MAX_BULK_SEND_ROWS },
      replayed: false,
      userErrors: [],
    });
    // Cut off in the middle, then resumed: a request per row, none twice.
    const id = data.bulkSendCreate.bulkSend.id;
    await crashAt(MAX_BULK_SEND_ROWS / 2 + 1);
    await t.app.jobs.runDue();
    const cut = (await api.get(`/bulk-sends/${id}`)).json();
    expect(cut.status).toBe('RUNNING');
    expect(cut.created).toBeGreaterThanOrEqual(MAX_BULK_SEND_ROWS / 2);
    expect(cut.created).toBeLessThan(MAX_BULK_SEND_ROWS);
    await resume(id);
    const { data: after } = await api.graphql(
      `query ($id: ID!) { bulkSend(id: $id) { status created failed failures { line } template { id } owner { id } } }`,
      { id },
    );
    expect(after.bulkSend).toMatchObject({ status: 'COMPLETED', created: MAX_BULK_SEND_ROWS, failed: 0, failures: [] });
    expect(await requestCount()).toBe(before + MAX_BULK_SEND_ROWS + 1);
    expect(await requestsOf(id)).toBe(MAX_BULK_SEND_ROWS);
  }, 300_000);

  it('GraphQL bulkSendCreate should answer userErrors under input.rows', async () => {
    const { data } = await api.graphql(
      `mutation ($input: BulkSendCreateInput!) {
        bulkSendCreate(input: $input) { bulkSend { id } replayed userErrors { field code } }
      }`,
      { input: { templateId, rows: [{ email: 'a@example.com' }, { line: 7, email: 'bad' }] } },
    );
    expect(data.bulkSendCreate).toEqual({
      bulkSend: null,
      replayed: null,
      userErrors: [{ field: ['input', 'rows', '1', 'email'], code: 'INVALID' }],
    });
  });
});
