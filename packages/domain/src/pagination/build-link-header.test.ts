import { describe, it, expect } from 'vitest';
import { buildLinkHeader } from './build-link-header';

const NEXT = 'https://demo.localhost:3000/admin/openapi/v20260901/products/products.json?limit=2&page_info=abc.def';
const PREV = 'https://demo.localhost:3000/admin/openapi/v20260901/products/products.json?limit=2&page_info=ghi.jkl';

describe('buildLinkHeader', () => {
  it('writes previous before next when both exist', () => {
    expect(buildLinkHeader({ next: NEXT, previous: PREV })).toBe(`<${PREV}>; rel="previous", <${NEXT}>; rel="next"`);
  });

  it('writes a single link when only one exists', () => {
    expect(buildLinkHeader({ next: NEXT })).toBe(`<${NEXT}>; rel="next"`);
    expect(buildLinkHeader({ previous: PREV })).toBe(`<${PREV}>; rel="previous"`);
  });

  it('returns undefined when there is no other page', () => {
    expect(buildLinkHeader({})).toBeUndefined();
  });

  it('percent-encodes characters that would break the header', () => {
    expect(buildLinkHeader({ next: 'https://h/p?a=<x> "y"\r\n' })).toBe('<https://h/p?a=%3Cx%3E%20%22y%22%0D%0A>; rel="next"');
    expect(buildLinkHeader({ next: 'https://h/p?q=é' })).toBe('<https://h/p?q=%C3%A9>; rel="next"');
  });
});
