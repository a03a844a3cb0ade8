import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Db, isUniqueViolation } from '../../../src/kernel/db/db';
import { createOrm } from '../../../src/kernel/db/orm';
import { MAX_PREPARED_STATEMENTS } from '../../../src/kernel/limits';
import { DATA_MODEL } from '../../../src/modules';
import { Organization, Team } from '../../../src/modules/identity/identity.entities';
import { StatementCounter, truncateAll, workerDatabaseUrl } from '../../support/app';

// The data layer every service reads and writes through (kernel/db/db.ts), against PostgreSQL.
describe('Db', () => {
  const POOL = 3;
  let orm: MikroORM;
  let db: Db;
  const sql = new StatementCounter();

  const names = async (ids: string[]) =>
    (
      await db.rows<{ name: string }>('select name from organization where id = any(?::uuid[]) order by name', [ids])
    ).map((row) => row.name);

  beforeAll(async () => {
    orm = await createOrm({ url: workerDatabaseUrl(), ...DATA_MODEL, poolMax: 1 });
    await truncateAll(orm);
    db = new Db({
      url: workerDatabaseUrl(),
      poolMax: POOL,
      metadata: orm.getMetadata(),
      onStatement: (statement) => sql.statements.push(statement),
    });
  });

  afterAll(async () => {
    await db.close();
    await orm.close();
  });

  beforeEach(() => sql.reset());

  it('should insert with the entity defaults, read records with relations as { id }, and update with onUpdate', async () => {
    const { organization, team } = await db.transaction(async (tx) => {
      const [organization] = await tx.insert(Organization, [{ name: 'Acme' }]);
      const [team] = await tx.insert(Team, [{ organization, name: 'Ops' }]);
      return { organization, team };
    });
    expect(organization.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(organization.createdAt).toBeInstanceOf(Date);
    expect(team.organization).toEqual({ id: organization.id });

    const [read] = await db.records(Team, 'select * from team where id = ?', [team.id]);
    expect(read).toEqual(team);
    const [some] = await db.records(Team, `select ${db.columns(Team, ['name'])} from team where id = ?`, [team.id]);
    expect(Object.keys(some).sort()).toEqual(['id', 'name']);

    const renamed = await db.transaction((tx) => tx.update(Team, team.id, { name: 'Support' }));
    expect(renamed.name).toBe('Support');
    expect(renamed.updatedAt.getTime()).toBeGreaterThanOrEqual(team.updatedAt.getTime());
    expect(renamed.createdAt).toEqual(team.createdAt);
  });

  it('should commit what its work wrote, then run the afterCommit callbacks', async () => {
    const id = randomUUID();
    const seen: string[] = [];
    await db.transaction(async (tx) => {
      await tx.insert(Organization, [{ id, name: 'Committed' }]);
      tx.afterCommit(() => seen.push('committed'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['committed']);
    expect(await names([id])).toEqual(['Committed']);
    expect(sql.statements.map((s) => s.split(' ')[0])).toEqual(['begin', 'insert', 'commit', 'select']);
  });

  it('should roll back when its work fails, without running the afterCommit callbacks', async () => {
    const id = randomUUID();
    const seen: string[] = [];
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(Organization, [{ id, name: 'Rolled back' }]);
        tx.afterCommit(() => seen.push('committed'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual([]);
    expect(await names([id])).toEqual([]);
  });

  it('should join the transaction it runs in, and refuse a statement once it has ended', async () => {
    const id = randomUUID();
    let ended: { rows(sql: string): Promise<unknown> } | undefined;
    await db.transaction(async (tx) => {
      await tx.transaction((inner) => inner.insert(Organization, [{ id, name: 'Joined' }]));
      ended = tx;
      expect(await tx.rows('select name from organization where id = ?', [id])).toEqual([{ name: 'Joined' }]);
    });
    await expect(ended!.rows('select 1')).rejects.toThrow('statement sent after its transaction ended');
  });

  it('should run statements sent at once in a transaction one after the other, on its one connection', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const pids = await db.transaction(async (tx) => {
      await Promise.all(ids.map((id, i) => tx.insert(Organization, [{ id, name: `Concurrent ${i}` }])));
      return Promise.all(ids.map(() => tx.rows<{ pid: number }>('select pg_backend_pid() as pid')));
    });
    expect(new Set(pids.map(([row]) => row.pid)).size).toBe(1);
    expect(await names(ids)).toEqual(['Concurrent 0', 'Concurrent 1', 'Concurrent 2']);
  });

  it('should roll back a failed statement, tell a unique violation, and keep its connections fit', async () => {
    const id = randomUUID();
    await db.transaction((tx) => tx.insert(Organization, [{ id, name: 'First' }]));
    for (let attempt = 0; attempt < POOL + 1; attempt++) {
      const failure = await db
        .transaction(async (tx) => {
          await tx.insert(Organization, [{ name: 'Before the duplicate' }]);
          await tx.insert(Organization, [{ id, name: 'Duplicate' }]);
        })
        .catch((err: unknown) => err);
      expect(isUniqueViolation(failure, 'organization_pkey')).toBe(true);
    }
    expect(
      (
        await db.rows<{ n: number }>("select count(*)::int as n from organization where name = 'Before the duplicate'")
      )[0].n,
    ).toBe(0);
    // Every connection of the pool still serves, inside transactions and out.
    await Promise.all(Array.from({ length: POOL }, () => db.transaction((tx) => tx.rows('select 1 as one'))));
    expect(db.pool.totalCount).toBeLessThanOrEqual(POOL);
  });

  it('should send a prepared statement by name, and keep answering it on every connection', async () => {
    const id = randomUUID();
    await db.transaction((tx) => tx.insert(Organization, [{ id, name: 'Prepared' }]));
    const read = () =>
      db.rows<{ name: string }>('select name from organization where id = ?', [id], { prepared: true });
    const answers = await Promise.all(Array.from({ length: POOL * 2 }, read));
    expect(answers.every(([row]) => row.name === 'Prepared')).toBe(true);
  });

  it('should prepare the first MAX_PREPARED_STATEMENTS texts, and send the texts past them unnamed', async () => {
    // One connection, so that PostgreSQL's list of prepared statements is the whole instance's.
    const single = new Db({ url: workerDatabaseUrl(), poolMax: 1, metadata: orm.getMetadata() });
    try {
      const texts = MAX_PREPARED_STATEMENTS + 20;
      for (let n = 0; n < texts; n++) {
        const [row] = await single.rows<{ n: number }>(`select ?::int + ${n} as n`, [1], { prepared: true });
        expect(row.n).toBe(n + 1);
      }
      const [{ count }] = await single.rows<{ count: number }>(
        "select count(*)::int as count from pg_prepared_statements where name like 'gather_%'",
      );
      expect(count).toBe(MAX_PREPARED_STATEMENTS);
      // A prepared text past the bound still answers, again and again.
      const [again] = await single.rows<{ n: number }>(`select ?::int + ${texts - 1} as n`, [1], { prepared: true });
      expect(again.n).toBe(texts);
    } finally {
      await single.close();
    }
  });

  it('should send Dates as instants and JSON columns as JSON', async () => {
    const instant = new Date('2026-01-02T03:04:05.678Z');
    const [row] = await db.rows<{ at: Date; doc: { a: number[] } }>('select ?::timestamptz as at, ?::jsonb as doc', [
      instant,
      JSON.stringify({ a: [1, 2] }),
    ]);
    expect(row.at.toISOString()).toBe(instant.toISOString());
    expect(row.doc).toEqual({ a: [1, 2] });
  });
});
