import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from '../../../src/kernel/db/orm';
import { findLean, findLeanTogether, queryRows, writeAtCommit } from '../../../src/kernel/db/lean';
import { afterCommit, inLeanTransaction, inTransaction } from '../../../src/kernel/db/transaction';
import { DATA_MODEL } from '../../../src/modules';
import { Organization } from '../../../src/modules/identity/identity.entities';
import { StatementCounter, truncateAll, workerDatabaseUrl } from '../../support/app';
import { firstWords, roundTrips as watchRoundTrips } from '../../support/round-trips';

// A lean transaction (inLeanTransaction): begin and commit sent on a connection of the pool, lean
// statements on that connection, anything MikroORM or knex would run refused (it would run outside).
describe('inLeanTransaction', () => {
  const POOL = 3;
  let orm: MikroORM;
  const sql = new StatementCounter();

  const insert = (em: EntityManager, id: string, name: string) =>
    queryRows(em, `insert into organization (id, name, created_at, updated_at) values (?, ?, now(), now())`, [
      id,
      name,
    ]);
  const names = async (ids: string[]) =>
    (
      await queryRows<{ name: string }>(
        orm.em.fork(),
        'select name from organization where id = any(?::uuid[]) order by name',
        [ids],
      )
    ).map((row) => row.name);

  beforeAll(async () => {
    orm = await createOrm({
      url: workerDatabaseUrl(),
      ...DATA_MODEL,
      poolMax: POOL,
      onQuery: (statement) => sql.statements.push(statement),
    });
    await truncateAll(orm);
  });
  afterAll(() => orm.close());

  it('should commit what its lean statements wrote, then run the afterCommit callbacks', async () => {
    const id = randomUUID();
    const seen: string[] = [];
    sql.reset();
    const result = await inLeanTransaction(orm.em.fork(), async (tx) => {
      await insert(tx, id, 'Committed');
      afterCommit(tx, () => seen.push('committed'));
      // Inside, the row is there; outside, not yet.
      expect((await queryRows(tx, 'select 1 from organization where id = ?', [id])).length).toBe(1);
      expect(await names([id])).toEqual([]);
      expect(seen).toEqual([]);
      return 'answer';
    });
    expect(result).toBe('answer');
    expect(seen).toEqual(['committed']);
    expect(await names([id])).toEqual(['Committed']);
    // Counted as MikroORM's transactions are: begin and commit among the statements (the second select is the outside
    // read).
    expect(sql.statements.map((s) => s.split(' ')[0])).toEqual([
      'begin',
      'insert',
      'select',
      'select',
      'commit',
      'select',
    ]);
  });

  it('should roll back when its work fails, without running the afterCommit callbacks', async () => {
    const id = randomUUID();
    const seen: string[] = [];
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, id, 'Rolled back');
        afterCommit(tx, () => seen.push('committed'));
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(seen).toEqual([]);
    expect(await names([id])).toEqual([]);
  });

  it('should refuse MikroORM inside, before it runs anything outside the transaction, and roll back', async () => {
    const id = randomUUID();
    const other = randomUUID();
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, id, 'Before the refusal');
        await tx.execute(
          `insert into organization (id, name, created_at, updated_at) values ('${other}', 'Outside', now(), now())`,
        );
      }),
    ).rejects.toThrow(/lean transaction.*use inTransaction/);
    await expect(inLeanTransaction(orm.em.fork(), (tx) => tx.findOne(Organization, { id }))).rejects.toThrow(
      /lean transaction/,
    );
    expect(await names([id, other])).toEqual([]);
  });

  it('should fail, and roll back, when a managed entity was created in it', async () => {
    const id = randomUUID();
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, id, 'With an entity');
        tx.create(Organization, { name: 'Managed' });
      }),
    ).rejects.toThrow('managed entities were written in a lean transaction');
    expect(await names([id])).toEqual([]);
  });

  it('should refuse a statement once it has ended', async () => {
    let kept: EntityManager | undefined;
    await inLeanTransaction(orm.em.fork(), async (tx) => {
      kept = tx;
    });
    await expect(queryRows(kept!, 'select 1')).rejects.toThrow('query on a finished transaction');
  });

  it('should join the transaction it runs in', async () => {
    const id = randomUUID();
    await expect(
      inTransaction(orm.em.fork(), async (outer) => {
        await inLeanTransaction(outer, async (tx) => {
          expect(tx).toBe(outer);
          await insert(tx, id, 'Joined');
        });
        throw new Error('the outer work failed');
      }),
    ).rejects.toThrow('the outer work failed');
    expect(await names([id])).toEqual([]);
  });

  it('should hand its connection back to the pool, whether it committed or not', async () => {
    const ids: string[] = [];
    for (let i = 0; i < POOL * 3; i++) {
      const id = randomUUID();
      ids.push(id);
      await inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, id, `Round ${i}`);
        if (i % 2) throw new Error('odd rounds fail');
      }).catch(() => undefined);
    }
    // All of the pool at once: none is held by a transaction that ended.
    const rounds = await Promise.all(
      Array.from({ length: POOL }, () =>
        inLeanTransaction(orm.em.fork(), async (tx) => (await queryRows(tx, 'select pg_backend_pid() as pid'))[0]),
      ),
    );
    expect(rounds).toHaveLength(POOL);
    expect(await names(ids)).toEqual(['Round 0', 'Round 2', 'Round 4', 'Round 6', 'Round 8']);
  });

  // What the transaction's connection is asked to send, one call per round trip.
  const roundTrips = async <T>(during: () => Promise<T>) => {
    const { result, sent } = await watchRoundTrips(during);
    return { result, sent: firstWords(sent) };
  };
  const insertAtCommit = (em: EntityManager, id: string, name: string, prepared = false) =>
    writeAtCommit(
      em,
      `insert into organization (id, name, created_at, updated_at) values (?, ?, now(), now())`,
      [id, name],
      { prepared },
    );

  it('should send begin with its first statement and commit with the write held for it: no round trip of their own', async () => {
    const [first, held] = [randomUUID(), randomUUID()];
    sql.reset();
    const { sent } = await roundTrips(() =>
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, first, 'First');
        await insertAtCommit(tx, held, 'Held', true);
        // Held: not written yet, inside or out.
        expect((await queryRows(orm.em.fork(), 'select 1 from organization where id = ?', [held])).length).toBe(0);
      }),
    );
    // Two round trips of the transaction's (begin with the insert, the held insert with commit), the outside read
    // between.
    expect(sent).toEqual(['insert', 'select', 'insert']);
    expect(await names([first, held])).toEqual(['First', 'Held']);
    // The log still has every statement in its place.
    expect(sql.statements.map((s) => s.split(' ')[0]).filter((s) => s !== 'select')).toEqual([
      'begin',
      'insert',
      'insert',
      'commit',
    ]);
  });

  it('should send a held write in the round trip of any statement after it, which then sees it', async () => {
    const id = randomUUID();
    const { result, sent } = await roundTrips(() =>
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insertAtCommit(tx, id, 'Seen');
        const read = (await queryRows<{ name: string }>(tx, 'select name from organization where id = ?', [id]))[0]
          ?.name;
        await insertAtCommit(tx, randomUUID(), 'Held again');
        // A read whose rows are taken as they arrive (a pg Query) waits for the held write too.
        return [
          read,
          (await findLean(tx, Organization, 'select id, name from organization where id = ?', [id]))[0]?.name,
        ];
      }),
    );
    expect(result).toEqual(['Seen', 'Seen']);
    // Each select with begin or the held insert before it in its round trip, then commit alone: nothing was held for
    // it.
    expect(sent).toEqual(['select', 'select', 'commit']);
    expect(await names([id])).toEqual(['Seen']);
  });

  it('should send begin with a first statement whose rows are taken as they arrive, and answer its rows', async () => {
    const id = randomUUID();
    await insert(orm.em.fork(), id, 'Streamed');
    const { result, sent } = await roundTrips(() =>
      inLeanTransaction(orm.em.fork(), (tx) =>
        findLean(tx, Organization, 'select id, name from organization where id = ? for update', [id]),
      ),
    );
    expect(result.map((row) => row.name)).toEqual(['Streamed']);
    expect(sent).toEqual(['select', 'commit']);
  });

  it('should roll back everything when the write held for the commit fails, and fail the transaction', async () => {
    const [first, duplicate] = [randomUUID(), randomUUID()];
    await insert(orm.em.fork(), duplicate, 'Already there');
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, first, 'Rolled back with the held write');
        await insertAtCommit(tx, duplicate, 'A duplicate key', true);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names([first, duplicate])).toEqual(['Already there']);
    // Sent before a read whose rows are taken as they arrive, it fails that read.
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insertAtCommit(tx, duplicate, 'A duplicate key', true);
        await findLean(tx, Organization, 'select id, name from organization where id = ?', [duplicate]);
      }),
    ).rejects.toThrow(/duplicate key/);
    // The connection went back to the pool fit for use (its transaction rolled back).
    const rounds = await Promise.all(
      Array.from({ length: POOL }, () =>
        inLeanTransaction(
          orm.em.fork(),
          async (tx) => (await queryRows<{ one: number }>(tx, 'select 1 as one'))[0].one,
        ),
      ),
    );
    expect(rounds).toEqual(Array(POOL).fill(1));
  });

  it('should send begin with several statements sent together, and answer their own results', async () => {
    const id = randomUUID();
    await insert(orm.em.fork(), id, 'Together');
    const { result, sent } = await roundTrips(() =>
      inLeanTransaction(orm.em.fork(), (tx) =>
        findLeanTogether(tx, [
          { entity: Organization, sql: 'select id, name from organization where id = ?', params: [id] },
          { entity: Organization, sql: 'select id, name from organization where id = ? and false', params: [id] },
        ]),
      ),
    );
    expect(result.map((rows) => rows.map((row) => row.name))).toEqual([['Together'], []]);
    expect(sent).toEqual(['select', 'commit']);
  });

  it('should send every write held for the commit with it, a prepared one parsed on its own the first time on a connection', async () => {
    // Statements prepared once per connection: a name of its own, so that no earlier test parsed it.
    const prepared = (em: EntityManager, id: string, name: string) =>
      writeAtCommit(
        em,
        `insert into organization (id, name, created_at, updated_at) values (?, ?, now(), now() + interval '0 s')`,
        [id, name],
        { prepared: true },
      );
    const rounds: string[][] = [];
    const ids: string[] = [];
    for (let i = 0; i < POOL + 1; i++) {
      const [plain, named, last] = [randomUUID(), randomUUID(), randomUUID()];
      ids.push(plain, named, last);
      const { sent } = await roundTrips(() =>
        inLeanTransaction(orm.em.fork(), async (tx) => {
          await queryRows(tx, 'select 1');
          await insertAtCommit(tx, plain, `Plain ${i}`);
          await prepared(tx, named, `Prepared ${i}`);
          await insertAtCommit(tx, last, `Last ${i}`);
        }),
      );
      rounds.push(sent);
    }
    // A connection parses the prepared insert once, in a round trip of its own with the plain write
    // before it (the select went with begin); after that, the three writes go with the commit. More
    // rounds than connections: one at least found its connection had parsed it.
    const [first, after] = [
      ['select', 'insert', 'insert'],
      ['select', 'insert'],
    ];
    for (const sent of rounds) expect([first, after]).toContainEqual(sent);
    expect(rounds.filter((sent) => sent.length === first.length).length).toBeLessThanOrEqual(POOL);
    expect(rounds).toContainEqual(after);
    expect((await names(ids)).length).toBe(ids.length);
  });

  it('should fail the statement a held write rode with, and roll back, when the held write fails', async () => {
    const [id, duplicate] = [randomUUID(), randomUUID()];
    await insert(orm.em.fork(), duplicate, 'Already there too');
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insertAtCommit(tx, id, 'Rolled back');
        await insertAtCommit(tx, duplicate, 'A duplicate key');
        await findLeanTogether(tx, [
          { entity: Organization, sql: 'select id, name from organization where id = ?', params: [id] },
          { entity: Organization, sql: 'select id, name from organization where id = ?', params: [duplicate] },
        ]);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names([id, duplicate])).toEqual(['Already there too']);
  });

  it('should fail, and roll back, when a value of a statement or of a held write cannot be sent, and keep its connection fit', async () => {
    const [id, other] = [randomUUID(), randomUUID()];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const unsendable = /circular/i;
    // A statement with begin, a prepared one (not yet parsed on its connection) with begin, one that a held write rides
    // with.
    await expect(
      inLeanTransaction(orm.em.fork(), (tx) => queryRows(tx, 'select ?::jsonb as j', [circular])),
    ).rejects.toThrow(unsendable);
    await expect(
      inLeanTransaction(orm.em.fork(), (tx) => queryRows(tx, 'select ?::jsonb as j', [circular], { prepared: true })),
    ).rejects.toThrow(unsendable);
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await insert(tx, id, 'Rolled back');
        await writeAtCommit(tx, 'update organization set name = ? where id = ?', [circular, id]);
        await queryRows(tx, 'select 1 from organization where id = ?', [id]);
      }),
    ).rejects.toThrow(unsendable);
    // Nothing was sent (the prepared statement was not parsed then closed, as pg does): it parses and runs now, on
    // every connection.
    const rounds = await Promise.all(
      Array.from({ length: POOL }, () =>
        inLeanTransaction(
          orm.em.fork(),
          async (tx) =>
            (await queryRows<{ j: unknown }>(tx, 'select ?::jsonb as j', [{ a: 1 }], { prepared: true }))[0].j,
        ),
      ),
    );
    expect(rounds).toEqual(Array(POOL).fill({ a: 1 }));
    await insert(orm.em.fork(), other, 'After');
    expect(await names([id, other])).toEqual(['After']);
  });

  it('should keep connections fit when a prepared statement sent alone has a value that cannot be sent', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const prepared = { prepared: true } as const;
    // Outside a transaction, and in one after its first statement (no brackets ride with it): pg's own
    // path would have parsed and closed the statement, then taken it for parsed on that connection.
    for (let i = 0; i < POOL; i++)
      await expect(queryRows(orm.em.fork(), 'select ?::jsonb as k', [circular], prepared)).rejects.toThrow(/circular/i);
    await expect(
      inLeanTransaction(orm.em.fork(), async (tx) => {
        await queryRows(tx, 'select 1');
        await queryRows(tx, 'select ?::jsonb as k', [circular], prepared);
      }),
    ).rejects.toThrow(/circular/i);
    const alone = await Promise.all(
      Array.from(
        { length: POOL },
        async () => (await queryRows<{ k: unknown }>(orm.em.fork(), 'select ?::jsonb as k', [{ b: 2 }], prepared))[0].k,
      ),
    );
    expect(alone).toEqual(Array(POOL).fill({ b: 2 }));
    const inside = await Promise.all(
      Array.from({ length: POOL }, () =>
        inLeanTransaction(orm.em.fork(), async (tx) => {
          await queryRows(tx, 'select 1');
          return (await queryRows<{ k: unknown }>(tx, 'select ?::jsonb as k', [{ c: 3 }], prepared))[0].k;
        }),
      ),
    );
    expect(inside).toEqual(Array(POOL).fill({ c: 3 }));
  });

  it('should send a write held for the commit at once in a transaction of MikroORM', async () => {
    const id = randomUUID();
    await inTransaction(orm.em.fork(), async (tx) => {
      await insertAtCommit(tx, id, 'Managed');
      expect((await queryRows(tx, 'select 1 from organization where id = ?', [id])).length).toBe(1);
    });
    expect(await names([id])).toEqual(['Managed']);
  });

  it('should keep a connection fit for use after a named statement that fails to parse went with begin', async () => {
    const wrong = 'select no_such_column from organization where id = ?';
    for (let i = 0; i < POOL * 2; i++) {
      await expect(
        inLeanTransaction(orm.em.fork(), (tx) => queryRows(tx, wrong, [randomUUID()], { prepared: true })),
      ).rejects.toThrow(/no_such_column/);
    }
    const rounds = await Promise.all(
      Array.from({ length: POOL }, () =>
        inLeanTransaction(
          orm.em.fork(),
          async (tx) => (await queryRows<{ one: number }>(tx, 'select 1 as one', [], { prepared: true }))[0].one,
        ),
      ),
    );
    expect(rounds).toEqual(Array(POOL).fill(1));
  });
});
