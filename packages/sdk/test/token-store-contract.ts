/*
 * What every shared TokenStore must do, run against each real backend (Redis, PostgreSQL) by its
 * test file: keep tokens across instances (processes), and lock a handle across instances. The
 * SQLite store, which has no lock, runs the first half (tokenPersistenceContract).
 */
import { expect, it } from 'vitest';
import type { SharedTokenStore, TokenStore } from '../src/index';

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Takes the lock of `handle` on `store` and keeps it until `release()`; resolves once it is held. */
async function holdLock(store: SharedTokenStore, handle: string) {
  const held = gate();
  const entered = gate();
  const holding = store.withLock(handle, async () => {
    entered.open();
    await held.opened;
  });
  await entered.opened;
  return () => {
    held.open();
    return holding;
  };
}

/** `make()` opens a new instance (its own connection or file handle) on the same backing store. */
export function tokenPersistenceContract(make: () => TokenStore & { close(): Promise<void> }) {
  it('keeps tokens across instances (a restart, another process), replaces and deletes them', async () => {
    const first = make();
    await first.set({ handle: 'demo', accessToken: 'a', expiresAt: '2026-11-22T10:00:00Z', scope: 'read_products' });
    await first.set({
      handle: 'demo',
      accessToken: 'b',
      expiresAt: '2026-11-22T20:00:00.000+08:00',
      scope: 'read_products,write_products',
    });
    await first.set({ handle: 'other', accessToken: 'c', expiresAt: '2026-11-22T20:00:00Z', scope: '' });
    await first.close();
    const second = make();
    expect(await second.get('demo')).toEqual({
      handle: 'demo',
      accessToken: 'b',
      expiresAt: '2026-11-22T20:00:00.000+08:00',
      scope: 'read_products,write_products',
    });
    await second.delete('demo');
    expect(await second.get('demo')).toBeUndefined();
    expect(await second.get('other')).toMatchObject({ accessToken: 'c' });
    expect(await second.get('never')).toBeUndefined();
    await second.close();
  });
}

/** `make(options)` opens a new instance (its own connection) on the same backing store. */
export function tokenStoreContract(make: (options?: { lockWaitMs?: number }) => SharedTokenStore) {
  tokenPersistenceContract(make);

  it('lets one instance at a time hold the lock of a handle, across instances', async () => {
    const stores = [make(), make()];
    let inside = 0;
    let most = 0;
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stores[i % 2]!.withLock('locked', async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside -= 1;
          return i;
        }),
      ),
    );
    expect(runs.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('locks per handle: another handle is not held up', async () => {
    const [one, two] = [make(), make()];
    const release = await holdLock(one, 'first');
    expect(await two.withLock('second', async () => 'ran')).toBe('ran');
    await release();
    await Promise.all([one.close(), two.close()]);
  });

  it('gives up waiting after lockWaitMs with an error naming the handle, and frees a lock whose work threw', async () => {
    const [holder, waiter] = [make(), make({ lockWaitMs: 300 })];
    const release = await holdLock(holder, 'busy');
    await expect(waiter.withLock('busy', async () => 'never')).rejects.toThrow(/refresh lock of busy was held longer than 300 ms/);
    await release();
    await expect(holder.withLock('busy', async () => Promise.reject(new Error('refresh failed')))).rejects.toThrow('refresh failed');
    expect(await waiter.withLock('busy', async () => 'after')).toBe('after');
    await Promise.all([holder.close(), waiter.close()]);
  });
}
