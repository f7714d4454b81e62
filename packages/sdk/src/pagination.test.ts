import { describe, expect, it } from 'vitest';
import { linksOf, paginate } from './pagination';

describe(linksOf.name, () => {
  it('reads next and previous from the link header (spec, Pagination rule 2)', () => {
    const headers = new Headers({
      link: '<https://demo.myplatform.com/admin/openapi/v20260901/products/products.json?page_info=b&limit=2>; rel="next", <https://demo.myplatform.com/admin/openapi/v20260901/products/products.json?page_info=a&limit=2>; rel="previous"',
    });
    expect(linksOf(headers)).toEqual({
      next: 'https://demo.myplatform.com/admin/openapi/v20260901/products/products.json?page_info=b&limit=2',
      previous: 'https://demo.myplatform.com/admin/openapi/v20260901/products/products.json?page_info=a&limit=2',
    });
  });

  it('accepts rel="prev" as the previous page (decisions §6.5)', () => {
    expect(linksOf(new Headers({ link: '<https://x.example/p?page_info=a>; rel="prev"' }))).toEqual({
      previous: 'https://x.example/p?page_info=a',
    });
  });

  it('gives no links when the header is absent: a single or last page (rule 5)', () => {
    expect(linksOf(new Headers())).toEqual({});
  });
});

describe(paginate.name, () => {
  it('loads the first page, then each next URL, until a page has none', async () => {
    const pages: Record<string, { items: number[]; link: { next?: string } }> = {
      first: { items: [1, 2], link: { next: 'https://x.example/2' } },
      'https://x.example/2': { items: [3], link: { next: 'https://x.example/3' } },
      'https://x.example/3': { items: [4, 5], link: {} },
    };
    const loaded: (string | undefined)[] = [];
    const seen: number[] = [];
    for await (const item of paginate(async (url) => {
      loaded.push(url);
      return pages[url ?? 'first']!;
    })) {
      seen.push(item);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(loaded).toEqual([undefined, 'https://x.example/2', 'https://x.example/3']);
  });

  it('loads no further page when the consumer stops early', async () => {
    let loads = 0;
    const iterator = paginate(async () => {
      loads += 1;
      return { items: ['a', 'b'], link: { next: 'https://x.example/again' } };
    });
    for await (const item of iterator) {
      if (item === 'a') break;
    }
    expect(loads).toBe(1);
  });

  it('passes a failing load on to the consumer', async () => {
    const iterator = paginate<number>(async (url) => {
      if (url) throw new Error('page 2 failed');
      return { items: [1], link: { next: 'https://x.example/2' } };
    });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of iterator) seen.push(item);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1]);
  });
});
