import { createTestApp, type TestApp } from '../support/app';

describe('/readyz', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const ready = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    return { status: response.statusCode, body: response.json() };
  };

  it('should answer 200 with every check ok', async () => {
    expect(await ready()).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', migrations: 'ok', dispatcher: 'ok' } },
    });
  });

  it('should answer 503 naming a pending migration', async () => {
    const connection = t.orm.em.fork().getConnection();
    const [last] = await connection.execute<{ id: number; name: string; executed_at: Date }[]>(
      'select * from mikro_orm_migrations order by name desc limit 1',
    );
    await connection.execute('delete from mikro_orm_migrations where id = ?', [last.id]);
    try {
      expect(await ready()).toEqual({
        status: 503,
        body: {
          status: 'unavailable',
          checks: { database: 'ok', migrations: `1 pending: ${last.name}`, dispatcher: 'ok' },
        },
      });
    } finally {
      await connection.execute('insert into mikro_orm_migrations (id, name, executed_at) values (?, ?, ?)', [
        last.id,
        last.name,
        last.executed_at,
      ]);
    }
    expect((await ready()).status).toBe(200);
  });

  it('should answer 503 when the event listener is not listening', async () => {
    await t.app.eventDispatcher.stop();
    expect(await ready()).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        checks: { database: 'ok', migrations: 'ok', dispatcher: 'not listening for events' },
      },
    });
  });

  it('should answer 503 when the database is unreachable', async () => {
    await t.orm.close(true);
    const { status, body } = await ready();
    expect(status).toBe(503);
    expect(body.checks.database).toMatch(/^unreachable: /);
    expect(body.checks.migrations).toBe('unknown');
  });
});
