import type { MikroORM } from '@mikro-orm/postgresql';
import type { Db } from '../db/db';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

const Health = Type.Object({ status: Type.String() });
/** Each readiness check: `ok`, or what is wrong. */
const Readiness = Type.Object({
  status: Type.String(),
  checks: Type.Object({ database: Type.String(), migrations: Type.String(), dispatcher: Type.String() }),
});

const failure = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `/healthz`: the process answers (a liveness probe: restart it when this fails). `/readyz`: it can
 * serve (a readiness probe: send it traffic only while this is 200): the database answers, no
 * migration is pending (an instance of a newer version has not migrated yet, or this one is older than
 * the schema), and the event listener holds its connection (else subscribers wait).
 */
export function registerHealth(
  app: FastifyInstance,
  { orm, db, listening }: { orm: MikroORM; db: Db; listening: () => boolean },
): void {
  // A load balancer polls these: they count against no rate limit.
  const schema = (summary: string, response: object) => ({
    config: { public: true, unlimited: true },
    schema: { tags: ['Health'], summary, response },
  });
  app.get('/healthz', schema('The process answers', { 200: Health }), async () => ({ status: 'ok' }));
  app.get(
    '/readyz',
    schema('The instance can serve: database, migrations, event listener', { 200: Readiness, 503: Readiness }),
    async (_request, reply) => {
      const checks = { database: 'ok', migrations: 'ok', dispatcher: listening() ? 'ok' : 'not listening for events' };
      try {
        await db.rows('select 1');
        const pending = await orm.getMigrator().getPendingMigrations();
        if (pending.length) checks.migrations = `${pending.length} pending: ${pending.map((m) => m.name).join(', ')}`;
      } catch (err) {
        checks.database = `unreachable: ${failure(err)}`;
        checks.migrations = 'unknown';
      }
      const ready = Object.values(checks).every((check) => check === 'ok');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );
}
