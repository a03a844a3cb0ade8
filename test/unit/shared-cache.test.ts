import { SharedCaches } from '../../src/kernel/db/shared-cache';

describe('SharedCaches', () => {
  let live = true;
  let loads = 0;
  const load =
    <V extends string | null>(value: V) =>
    async (): Promise<V> => {
      loads++;
      return value;
    };
  beforeEach(() => {
    live = true;
    loads = 0;
  });

  it('should read once and keep the value until its table changes', async () => {
    const caches = new SharedCaches(() => live, 60);
    const cache = caches.of<string>('viewer', ['api_key', 'app_user']);
    expect(await cache.get('k', load('one'))).toBe('one');
    expect(await cache.get('k', load('two'))).toBe('one');
    caches.changed('organization_settings');
    expect(await cache.get('k', load('two'))).toBe('one');
    caches.changed('app_user');
    expect(await cache.get('k', load('two'))).toBe('two');
    caches.changed(null);
    expect(await cache.get('k', load('three'))).toBe('three');
    expect(loads).toBe(3);
  });

  it('should keep no answer of nothing', async () => {
    const cache = new SharedCaches(() => live, 60).of<string | null>('viewer');
    expect(await cache.get('k', load(null))).toBeNull();
    expect(await cache.get('k', load('found'))).toBe('found');
    expect(loads).toBe(2);
  });

  it('should read every time while the instance does not hear changes', async () => {
    const cache = new SharedCaches(() => live, 60).of<string>('viewer');
    live = false;
    await cache.get('k', load('one'));
    await cache.get('k', load('one'));
    expect(loads).toBe(2);
    live = true;
    await cache.get('k', load('one'));
    await cache.get('k', load('one'));
    expect(loads).toBe(3);
  });

  it('should not keep what a read that a change overtook answered', async () => {
    const caches = new SharedCaches(() => live, 60);
    const cache = caches.of<string>('viewer');
    let finish!: (value: string) => void;
    const slow = cache.get('k', () => new Promise<string>((resolve) => (finish = resolve)));
    caches.changed('viewer');
    finish('before the change');
    expect(await slow).toBe('before the change');
    expect(await cache.get('k', load('after'))).toBe('after');
  });
});
