import { describe, expect, it } from 'vitest';
import { ListingCache } from './listing-cache';

const page = (text: string) => ({ body: Buffer.from(text), linkQueries: {} });

/** A page asked for twice (two misses), then answered: kept. */
function keep(sut: ListingCache, key: string, revision: bigint, text: string): void {
  sut.get(key, revision);
  sut.get(key, revision);
  sut.set(key, revision, page(text));
}

describe(ListingCache.name, () => {
  it('serves a page only under the revision it was made under', () => {
    const sut = new ListingCache(1_000_000);
    keep(sut, 'a', 1n, 'one');
    expect(sut.get('a', 1n)?.body.toString()).toBe('one');
    expect(sut.get('a', 2n)).toBeUndefined();
    expect(sut.get('a', 1n)).toBeUndefined();
  });

  it('keeps the page of a newer revision when an older request asks or answers late', () => {
    const sut = new ListingCache(1_000_000);
    keep(sut, 'a', 5n, 'new');
    expect(sut.get('a', 4n)).toBeUndefined();
    sut.set('a', 4n, page('old'));
    expect(sut.get('a', 5n)?.body.toString()).toBe('new');
  });

  it('drops the least recently used pages past its byte budget, and keeps nothing with a budget of 0', () => {
    const sut = new ListingCache(3 * (1000 + 256));
    for (const key of ['a', 'b', 'c']) keep(sut, key, 1n, 'x'.repeat(1000));
    expect(sut.get('a', 1n)).toBeDefined();
    keep(sut, 'd', 1n, 'x'.repeat(1000));
    expect(sut.get('b', 1n)).toBeUndefined();
    expect(sut.get('a', 1n)).toBeDefined();
    expect(sut.get('d', 1n)).toBeDefined();
    const none = new ListingCache(0);
    keep(none, 'a', 1n, 'x');
    expect(none.get('a', 1n)).toBeUndefined();
  });

  it('keeps a page from its second ask on, so pages asked once (a catalog walk) push out none asked again', () => {
    const sut = new ListingCache(2 * (1000 + 256));
    keep(sut, 'first', 1n, 'x'.repeat(1000));
    // A walk: every page asked once and answered. None is kept, and the first page stays.
    for (let n = 0; n < 50; n++) {
      expect(sut.get(`walk-${n}`, 1n)).toBeUndefined();
      sut.set(`walk-${n}`, 1n, page('x'.repeat(1000)));
    }
    expect(sut.get('first', 1n)).toBeDefined();
    expect(sut.get('walk-0', 1n)).toBeUndefined();
    sut.set('walk-0', 1n, page('asked twice now'));
    expect(sut.get('walk-0', 1n)?.body.toString()).toBe('asked twice now');
  });

  it('keeps a kept page again under a newer revision on its next answer', () => {
    const sut = new ListingCache(1_000_000);
    keep(sut, 'a', 1n, 'one');
    expect(sut.get('a', 2n)).toBeUndefined();
    sut.set('a', 2n, page('two'));
    expect(sut.get('a', 2n)?.body.toString()).toBe('two');
  });
});
