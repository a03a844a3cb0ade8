import { createHash } from 'node:crypto';
import { MAX_IDEMPOTENCY_KEY } from '../../src/kernel/limits';
import { createTenant, createTestApp, type TestApp } from '../support/app';

// Idempotency-Key on POST, through REST and GraphQL: a retry gets the first answer and creates
// nothing, another body with the key is a 422, concurrent calls with one key create one record, keys
// belong to their API key and expire.

describe('Idempotency-Key', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    apiKey = (await createTenant(t.db)).apiKey;
    otherKey = (await createTenant(t.db)).apiKey;
  });
  afterAll(() => t.close());

  const post = (url: string, body: unknown, key: string | undefined, credential = apiKey) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: body as object,
      headers: { authorization: `Bearer ${credential}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    });
  const templatesNamed = async (name: string) => {
    const [{ count }] = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ count: string }[]>('select count(*) from template where name = ?', [name]);
    return Number(count);
  };

  it('should answer a retry with the first answer, status and body, and create nothing more', async () => {
    const first = await post('/templates', { name: 'Retried' }, 'key-retry-1');
    expect(first.statusCode).toBe(200);
    const retry = await post('/templates', { name: 'Retried' }, 'key-retry-1');
    expect(retry.statusCode).toBe(first.statusCode);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.headers['api-revision']).toBe('2');
    expect(await templatesNamed('Retried')).toBe(1);
    // Without a key, the same body creates again.
    expect((await post('/templates', { name: 'Retried' }, undefined)).statusCode).toBe(200);
    expect(await templatesNamed('Retried')).toBe(2);
  });

  it('should answer the same key with another body with a 422 and create nothing', async () => {
    await post('/templates', { name: 'First body' }, 'key-reused');
    const other = await post('/templates', { name: 'Second body' }, 'key-reused');
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      detail: [
        {
          loc: ['header', 'Idempotency-Key'],
          msg: expect.stringContaining('another request'),
          type: 'idempotency_key_reused',
        },
      ],
    });
    expect(await templatesNamed('Second body')).toBe(0);
    // Another path is another request too.
    expect((await post('/contacts', { name: 'First body' }, 'key-reused')).statusCode).toBe(422);
  });

  it('should replay a refusal of the service as it was (a 422 stays a 422)', async () => {
    // Blank passes the body's schema (at least one character) and is refused by the service.
    const first = await post('/templates', { name: '   ' }, 'key-refused');
    expect(first.statusCode).toBe(422);
    const retry = await post('/templates', { name: '   ' }, 'key-refused');
    expect({ status: retry.statusCode, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
      status: 422,
      body: first.body,
      replayed: 'true',
    });
  });

  it('should create one record for concurrent calls with one key: the others get the first answer or a 409 while it runs', async () => {
    const calls = await Promise.all(
      Array.from({ length: 8 }, () => post('/templates', { name: 'Concurrent' }, 'key-concurrent')),
    );
    expect(await templatesNamed('Concurrent')).toBe(1);
    const created = calls.filter((c) => c.statusCode === 200 && c.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const call of calls.filter((c) => c !== created[0])) {
      if (call.statusCode === 409) {
        expect(call.headers['retry-after']).toBe('1');
        expect(call.json()).toEqual({ detail: expect.stringContaining('still running') });
      } else {
        expect({ status: call.statusCode, body: call.body }).toEqual({ status: 200, body: created[0].body });
      }
    }
    const after = await post('/templates', { name: 'Concurrent' }, 'key-concurrent');
    expect(after.body).toBe(created[0].body);
  });

  it('should answer a key still held by a running call with a 409, and let a retry run once the holder is gone', async () => {
    // A call that holds the key and never answered: its transaction holds the key's lock until it
    // ends (its instance died: its connection closed, its transaction rolled back).
    const scope = createHash('sha256').update(apiKey).digest('hex');
    const holder = await t.db.begin();
    await holder.rows('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${scope} key-abandoned`]);
    const held = await post('/templates', { name: 'Abandoned' }, 'key-abandoned');
    expect(held.statusCode).toBe(409);
    expect(await templatesNamed('Abandoned')).toBe(0);
    await holder.rollback();
    const retried = await post('/templates', { name: 'Abandoned' }, 'key-abandoned');
    expect(retried.statusCode).toBe(200);
    expect(await templatesNamed('Abandoned')).toBe(1);
  });

  it("should keep the key in its call's transaction: a write whose answer cannot be kept is not kept either", async () => {
    // Keeping the answer fails (as a crash between the write and its key would have left them apart).
    const sql = (text: string) => t.orm.em.fork().getConnection().execute(text);
    await sql(`create function refuse_doomed() returns trigger language plpgsql as $$
               begin if new.key = 'key-doomed' then raise exception 'no room for this key'; end if; return new; end $$`);
    await sql(
      `create trigger refuse_doomed before insert on idempotency_key for each row execute function refuse_doomed()`,
    );
    try {
      expect((await post('/templates', { name: 'Doomed' }, 'key-doomed')).statusCode).toBe(500);
      expect(await templatesNamed('Doomed')).toBe(0);
    } finally {
      await sql('drop trigger refuse_doomed on idempotency_key; drop function refuse_doomed()');
    }
    // The retry runs once, and its key and write are kept together.
    expect((await post('/templates', { name: 'Doomed' }, 'key-doomed')).statusCode).toBe(200);
    expect((await post('/templates', { name: 'Doomed' }, 'key-doomed')).headers['idempotent-replayed']).toBe('true');
    expect(await templatesNamed('Doomed')).toBe(1);
  });

  it('should keep keys per API key: another key runs the same key again', async () => {
    const mine = await post('/templates', { name: 'Per key' }, 'key-shared');
    const theirs = await post('/templates', { name: 'Per key' }, 'key-shared', otherKey);
    expect(mine.statusCode).toBe(200);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(await templatesNamed('Per key')).toBe(2);
  });

  it('should forget expired keys: the key runs again and the sweep deletes them', async () => {
    await post('/templates', { name: 'Expiring' }, 'key-expiring');
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update idempotency_key set expires_at = now() where key = 'key-expiring'`);
    expect(
      (await post('/templates', { name: 'Expiring' }, 'key-expiring')).headers['idempotent-replayed'],
    ).toBeUndefined();
    expect(await templatesNamed('Expiring')).toBe(2);
    await t.orm.em
      .fork()
      .getConnection()
      .execute(`update idempotency_key set expires_at = now() where key = 'key-expiring'`);
    const swept = await t.app.edgeStore.sweep();
    expect(swept.keys).toBeGreaterThanOrEqual(1);
    const [{ count }] = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ count: string }[]>(`select count(*) from idempotency_key where key = 'key-expiring'`);
    expect(Number(count)).toBe(0);
  });

  it('should refuse a key that is empty, too long or not printable ASCII', async () => {
    const long = await post('/templates', { name: 'Bad key' }, 'k'.repeat(MAX_IDEMPOTENCY_KEY + 1));
    expect(long.statusCode).toBe(422);
    expect(long.json().detail[0].loc).toEqual(['header', 'Idempotency-Key']);
    expect((await post('/templates', { name: 'Bad key' }, 'has space')).statusCode).toBe(422);
    expect(await templatesNamed('Bad key')).toBe(0);
  });

  it('should honour the key on a GraphQL mutation through the same header', async () => {
    const mutation = {
      query:
        'mutation { templateCreate(input: { name: "Through GraphQL" }) { template { id } userErrors { message } } }',
    };
    const first = await post('/graphql', mutation, 'key-graphql');
    expect(first.statusCode).toBe(200);
    const retry = await post('/graphql', mutation, 'key-graphql');
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await templatesNamed('Through GraphQL')).toBe(1);
    const other = await post(
      '/graphql',
      { query: 'mutation { templateCreate(input: { name: "Other" }) { template { id } } }' },
      'key-graphql',
    );
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      data: null,
      errors: [{ message: expect.stringContaining('another request'), extensions: { code: 'IDEMPOTENCY_KEY_REUSED' } }],
    });
  });

  it('should document the header on every JSON POST of the OpenAPI document, with its 409', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/templates'].post;
    expect(operation.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'Idempotency-Key' })]),
    );
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422', '429']));
    expect(document.paths['/templates'].get.parameters ?? []).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key' })]),
    );
  });
});
