import { randomUUID } from 'node:crypto';
import { queueOf } from '../../src/kernel/jobs/queue';

describe('queueOf', () => {
  it('should put a key in the same queue every time, and spread keys over every queue', () => {
    const ids = Array.from({ length: 2000 }, () => randomUUID());
    expect(ids.map((id) => queueOf('events:', id, 64))).toEqual(ids.map((id) => queueOf('events:', id, 64)));
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(queueOf('wh:x:', id, 16), (counts.get(queueOf('wh:x:', id, 16)) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: 16 }, (_, i) => `wh:x:${i}`).sort());
    // 125 each on average: none far off.
    for (const count of counts.values()) expect(count).toBeGreaterThan(70);
  });
});
