import { describe, expect, it } from 'vitest';
import { ListingCache } from './listing-cache';

const page = (text: string) => ({ body: Buffer.from(text), linkQueries: {} });

describe(ListingCache.name, () => {
  it('serves a page only under the revision it was made under', () => {
    const sut = new ListingCache(1_000_000);
    sut.set('a', 1n, page('one'));
    expect(sut.get('a', 1n)?.body.toString()).toBe('one');
    expect(sut.get('a', 2n)).toBeUndefined();
    expect(sut.get('a', 1n)).toBeUndefined();
  });

  it('keeps the page of a newer revision when an older request asks or answers late', () => {
    const sut = new ListingCache(1_000_000);
    sut.set('a', 5n, page('new'));
    expect(sut.get('a', 4n)).toBeUndefined();
    sut.set('a', 4n, page('old'));
    expect(sut.get('a', 5n)?.body.toString()).toBe('new');
  });

  it('drops the least recently used pages past its byte budget, and keeps nothing with a budget of 0', () => {
    const sut = new ListingCache(3 * (1000 + 256));
    for (const key of ['a', 'b', 'c']) sut.set(key, 1n, page('x'.repeat(1000)));
    expect(sut.get('a', 1n)).toBeDefined();
    sut.set('d', 1n, page('x'.repeat(1000)));
    expect(sut.get('b', 1n)).toBeUndefined();
    expect(sut.get('a', 1n)).toBeDefined();
    expect(sut.get('d', 1n)).toBeDefined();
    const none = new ListingCache(0);
    none.set('a', 1n, page('x'));
    expect(none.get('a', 1n)).toBeUndefined();
  });
});
