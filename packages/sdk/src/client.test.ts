import { describe, expect, it } from 'vitest';
import { fakeClock } from '../test/fake-clock';
import { createClient, resolveBaseUrl } from './client';
import type { SdkEvent } from './transport';

describe(resolveBaseUrl.name, () => {
  it('puts https in front of a store domain, keeps a given scheme', () => {
    expect(resolveBaseUrl({ storeDomain: 'demo.myplatform.com' })).toBe('https://demo.myplatform.com');
    expect(resolveBaseUrl({ storeDomain: 'http://demo.localhost:3000' })).toBe('http://demo.localhost:3000');
  });

  it('uses baseUrl as is, without a trailing slash', () => {
    expect(resolveBaseUrl({ baseUrl: 'http://127.0.0.1:3000/' })).toBe('http://127.0.0.1:3000');
    expect(resolveBaseUrl({ baseUrl: 'https://gateway.example/platform' })).toBe('https://gateway.example/platform');
  });

  it('wants exactly one of storeDomain and baseUrl, and a URL', () => {
    expect(() => resolveBaseUrl({})).toThrow(/exactly one/);
    expect(() => resolveBaseUrl({ storeDomain: 'a.example', baseUrl: 'http://127.0.0.1' })).toThrow(/exactly one/);
    expect(() => resolveBaseUrl({ baseUrl: '127.0.0.1:3000 /x' })).toThrow(TypeError);
  });
});

describe(createClient.name, () => {
  it('refuses an empty token or version, or a version that is not a release, before any request', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1', accessToken: '', apiVersion: 'v20260901' })).toThrow(/accessToken/);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1', accessToken: 't', apiVersion: '' })).toThrow(/apiVersion/);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1', accessToken: 't', apiVersion: 'latest' })).toThrow(/not a release/);
  });

  it('reports a version about to leave the window once, as a deprecation event (decisions §2)', () => {
    const events: SdkEvent[] = [];
    const clock = fakeClock(Date.parse('2026-11-22T00:00:00Z'));
    createClient({ baseUrl: 'http://127.0.0.1', accessToken: 't', apiVersion: 'v20241201', clock, onEvent: (e) => events.push(e) });
    expect(events).toEqual([
      {
        type: 'deprecation',
        apiVersion: 'v20241201',
        retiresOn: '2026-12-01',
        message: expect.stringMatching(/leaves the supported window on 2026-12-01/),
      },
    ]);
  });

  it('sends a store-domain client to https://{domain}/admin/openapi/{version}/...', async () => {
    const urls: string[] = [];
    const fetch = (async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ data: { handle: 'demo' } }), { headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof globalThis.fetch;
    const client = createClient({ storeDomain: 'demo.myplatform.com', accessToken: 't', apiVersion: 'v20260901', fetch, rateLimit: false });
    expect(await client.shop.get()).toEqual({ handle: 'demo' });
    expect(urls).toEqual(['https://demo.myplatform.com/admin/openapi/v20260901/merchants/shop.json']);
  });

  it('refuses to send the token to a link of another origin', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 't', apiVersion: 'v20260901', rateLimit: false });
    await expect(
      client.products.page('https://attacker.example/admin/openapi/v20260901/products/products.json?page_info=x'),
    ).rejects.toThrow(/not the client's origin/);
  });
});

describe('iterate', () => {
  it('sends the query once, then each next link exactly as the service wrote it (decisions §6.2, §6.5)', async () => {
    const base = 'https://demo.myplatform.com/admin/openapi/v20260901/metafield_definitions.json';
    // Links with a parameter order and an extra parameter the SDK would never build.
    const pages: Record<string, { ids: string[]; link?: string }> = {
      [`${base}?namespace=custom&limit=1`]: { ids: ['1'], link: `<${base}?zz=1&page_info=p2&limit=1>; rel="next"` },
      [`${base}?zz=1&page_info=p2&limit=1`]: {
        ids: ['2'],
        link: `<${base}?page_info=p3&limit=1>; rel="next", <${base}?page_info=p1>; rel="prev"`,
      },
      [`${base}?page_info=p3&limit=1`]: { ids: ['3'], link: `<${base}?page_info=p2&limit=1>; rel="previous"` },
    };
    const urls: string[] = [];
    const fetch = (async (url: string) => {
      urls.push(url);
      const page = pages[url];
      if (!page) return new Response('{"errors":"Not Found"}', { status: 404 });
      return new Response(JSON.stringify({ metafield_definitions: page.ids.map((id) => ({ id })) }), {
        headers: { 'content-type': 'application/json', ...(page.link ? { link: page.link } : {}) },
      });
    }) as unknown as typeof globalThis.fetch;
    const client = createClient({ storeDomain: 'demo.myplatform.com', accessToken: 't', apiVersion: 'v20260901', fetch, rateLimit: false });
    const ids: string[] = [];
    for await (const definition of client.admin.listMetafieldDefinitions.iterate({ query: { namespace: 'custom', limit: 1 } }))
      ids.push(definition.id);
    expect(ids).toEqual(['1', '2', '3']);
    expect(urls).toEqual(Object.keys(pages));
    const second = await client.admin.listMetafieldDefinitions.page(`${base}?zz=1&page_info=p2&limit=1`);
    expect(second.previous).toEqual({ url: `${base}?page_info=p1`, pageInfo: 'p1', limit: undefined, fields: undefined });
    expect(second.next).toMatchObject({ pageInfo: 'p3', limit: 1 });
  });
});
