import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { buildLinkHeader, type PageLinks } from './build-link-header';
import { parseLinkHeader } from './parse-link-header';

const A = 'https://demo.localhost/admin/openapi/v20260901/products/products.json?page_info=a&limit=5';
const B = 'https://demo.localhost/admin/openapi/v20260901/products/products.json?page_info=b&limit=5';

describe('parseLinkHeader', () => {
  it('reads the header the service writes', () => {
    expect(parseLinkHeader(`<${A}>; rel="previous", <${B}>; rel="next"`)).toEqual({ previous: A, next: B });
  });

  it('returns no links for an absent or empty header', () => {
    expect(parseLinkHeader(undefined)).toEqual({});
    expect(parseLinkHeader(null)).toEqual({});
    expect(parseLinkHeader('')).toEqual({});
  });

  it('accepts rel="prev" as previous', () => {
    expect(parseLinkHeader(`<${A}>; rel="prev"`)).toEqual({ previous: A });
  });

  it('tolerates whitespace variations, unquoted rel and any letter case', () => {
    expect(parseLinkHeader(`  <${A}>;rel=prev ,<${B}> ;  REL = "NEXT"  `)).toEqual({ previous: A, next: B });
    expect(parseLinkHeader(`<${A}>;\trel=next`)).toEqual({ next: A });
  });

  it('reads URLs containing commas and semicolons inside the angle brackets', () => {
    const url = 'https://h.example/p;v=1?fields=id,title;x&page_info=q';
    expect(parseLinkHeader(`<${url}>; rel="next", <${A}>; rel="previous"`)).toEqual({ next: url, previous: A });
  });

  it('reads several rel values in one attribute', () => {
    expect(parseLinkHeader(`<${A}>; rel="next last"`)).toEqual({ next: A });
    expect(parseLinkHeader(`<${A}>; rel="first prev"`)).toEqual({ previous: A });
  });

  it('ignores other parameters, including quoted ones holding commas and semicolons', () => {
    expect(parseLinkHeader(`<${A}>; title="a, b; c"; rel="next"; type=text/html, <${B}>; rel=previous`)).toEqual({ next: A, previous: B });
  });

  it('ignores unrelated rels and malformed entries, keeping the good ones', () => {
    expect(parseLinkHeader(`<${A}>; rel="first", garbage; rel="next", <${B}>; rel="next"`)).toEqual({ next: B });
    expect(parseLinkHeader(`<${A}; rel="next"`)).toEqual({});
  });

  it('keeps the first link of each kind', () => {
    expect(parseLinkHeader(`<${A}>; rel="next", <${B}>; rel="next"`)).toEqual({ next: A });
  });

  it('returns exactly what buildLinkHeader was given, for any absolute URLs with query strings', () => {
    const url = fc.webUrl({ withQueryParameters: true, withFragments: true });
    const links: fc.Arbitrary<PageLinks> = fc.record({ next: url, previous: url }, { requiredKeys: [] });
    fc.assert(
      fc.property(links, (x) => {
        expect(parseLinkHeader(buildLinkHeader(x))).toEqual(x);
      }),
      { numRuns: 300 },
    );
  });
});
