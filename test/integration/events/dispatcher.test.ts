import { EventDispatcher } from '../../../src/kernel/events/dispatcher';
import type { StoredEvent } from '../../../src/kernel/events/topics';
import { createTenant, createTestApp, workerDatabaseUrl, type TestApp, type Tenant } from '../../support/app';
import { createRequest, eventually } from '../../support/fixtures';

describe('event dispatcher', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  /**
   * A dispatcher of its own on this database, recording what it hands out and how many event notifications it heard
   * (it asks `wanted` once for each).
   */
  async function listen(wanted: () => boolean, written?: (id: string) => StoredEvent | undefined) {
    let heard = 0;
    const dispatcher = new EventDispatcher(workerDatabaseUrl(), t.app.log, () => (heard++, wanted()), written);
    const events: StoredEvent[] = [];
    dispatcher.on('event', (event) => events.push(event));
    await dispatcher.start();
    return { dispatcher, events, heard: () => heard };
  }

  it('should hand out the committed row to readers, and nothing when nobody reads', async () => {
    let wanted = true;
    const { dispatcher, events, heard } = await listen(() => wanted);
    try {
      const read = await createRequest(t.app, tenant.apiKey, { name: 'Read' });
      await eventually(async () => events.length === 1);
      expect(events[0]).toMatchObject({
        topic: 'request.created',
        subjectId: read.id,
        organizationId: tenant.organizationId,
      });
      expect(events[0].data).toMatchObject({ id: read.id, name: 'Read' });

      wanted = false;
      await createRequest(t.app, tenant.apiKey, { name: 'Unread' });
      await eventually(async () => heard() === 2);
      wanted = true;
      const after = await createRequest(t.app, tenant.apiKey, { name: 'Read again' });
      await eventually(async () => events.length === 2);
      expect(events.map((event) => event.subjectId)).toEqual([read.id, after.id]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('should hand out an event its own instance wrote as written, without reading the row', async () => {
    // Stands in for Outbox.take: whatever it answers for a notified id is what goes out.
    const asked: string[] = [];
    const written = (id: string): StoredEvent => {
      asked.push(id);
      return {
        id,
        organizationId: tenant.organizationId,
        topic: 'as.written',
        subjectType: 'Request',
        subjectId: id,
        requestId: null,
        data: {},
        updated: null,
        createdAt: new Date(),
      };
    };
    const { dispatcher, events } = await listen(() => true, written);
    try {
      await createRequest(t.app, tenant.apiKey, { name: 'Written here' });
      await eventually(async () => events.length === 1);
      expect(events[0]).toMatchObject({ id: asked[0], topic: 'as.written' });
    } finally {
      await dispatcher.stop();
    }
  });

  it('should catch up on what committed while its connection was lost, once each', async () => {
    const { dispatcher, events } = await listen(() => true);
    try {
      const before = await createRequest(t.app, tenant.apiKey, { name: 'Before' });
      await eventually(async () => events.length === 1);
      // Every listener's connection dies (the app's own reconnects too); a change commits meanwhile.
      await t.orm.em
        .fork()
        .getConnection()
        .execute(
          `select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen gather_events' and pid <> pg_backend_pid()`,
        );
      const during = await createRequest(t.app, tenant.apiKey, { name: 'While disconnected' });
      await eventually(async () => events.length === 2);
      expect(events.map((event) => event.subjectId)).toEqual([before.id, during.id]);
      const after = await createRequest(t.app, tenant.apiKey, { name: 'After' });
      await eventually(async () => events.length === 3);
      expect(events.map((event) => event.subjectId)).toEqual([before.id, during.id, after.id]);
    } finally {
      await dispatcher.stop();
    }
  });
});
