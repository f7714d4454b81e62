/*
 * Routes this branch has not seen (resource feedback, webhooks: other branches add them) get
 * typed methods from the same walker that builds `client.admin`: shaped like decisions §9 and §11.1
 * here, sent to a recording fetch.
 */
import { ADMIN_PATH_PREFIX } from '@platform/contract';
import { initContract } from '@ts-rest/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createRouterMethods } from './routes';
import { createTransport } from './transport';

const c = initContract();
const ZWebhook = z.object({ id: z.string(), topic: z.string(), address: z.string() });
const future = c.router(
  {
    createResourceFeedback: {
      method: 'POST',
      path: '/products/:product_id/resource_feedback.json',
      body: z.object({
        resource_feedback: z.object({
          state: z.enum(['require_actions', 'success']),
          feedback_generated_at: z.string(),
          messages: z.array(z.string()).optional(),
        }),
      }),
      responses: {
        201: z.object({ resource_feedback: z.object({ resource_id: z.string(), state: z.string() }) }),
        200: z.object({ resource_feedback: z.object({ resource_id: z.string(), state: z.string() }) }),
      },
    },
    webhooks: {
      listWebhooks: {
        method: 'GET',
        path: '/webhooks.json',
        query: z.object({ limit: z.string().optional(), page_info: z.string().optional() }),
        responses: { 200: z.object({ webhooks: z.array(ZWebhook) }) },
      },
      updateWebhook: {
        method: 'PUT',
        path: '/webhooks/:id.json',
        body: z.object({ webhook: z.object({ address: z.string() }) }),
        responses: { 200: z.object({ webhook: ZWebhook }) },
      },
    },
  },
  { pathPrefix: ADMIN_PATH_PREFIX },
);

function recorder() {
  const sent: { method: string; url: string; body: unknown }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ method: String(init.method), url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const body = url.includes('resource_feedback')
      ? { resource_feedback: { resource_id: '7', state: 'success' } }
      : url.includes('webhooks.json')
        ? { webhooks: [{ id: '1', topic: 'inventory_items/update', address: 'https://a' }] }
        : { webhook: { id: '3', topic: 'inventory_items/update', address: 'https://b' } };
    return new Response(JSON.stringify(body), {
      status: url.includes('resource_feedback') ? 201 : 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as unknown as typeof globalThis.fetch;
  const send = createTransport({ accessToken: 't', fetch, bucketKey: 'future', rateLimit: false });
  return { sent, methods: createRouterMethods({ base: 'https://demo.myplatform.com', apiVersion: 'v20260901', send }, future) };
}

describe('routes this branch has not seen', () => {
  it('become typed methods, nested routers nested objects, listings with iterate', async () => {
    const { sent, methods } = recorder();
    const feedback = await methods.createResourceFeedback({
      params: { product_id: '7' },
      body: { resource_feedback: { state: 'success', feedback_generated_at: '2026-11-22T12:00:00Z' } },
    });
    expectTypeOf(feedback.resource_feedback.state).toEqualTypeOf<string>();
    const page = await methods.webhooks.listWebhooks({ query: { limit: 10 } });
    expectTypeOf(page.next).toEqualTypeOf<import('./pagination').PageRef | undefined>();
    expect(typeof methods.webhooks.listWebhooks.iterate).toBe('function');
    await methods.webhooks.updateWebhook({ params: { id: '3' }, body: { webhook: { address: 'https://b' } } });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST https://demo.myplatform.com/admin/openapi/v20260901/products/7/resource_feedback.json',
      'GET https://demo.myplatform.com/admin/openapi/v20260901/webhooks.json?limit=10',
      'PUT https://demo.myplatform.com/admin/openapi/v20260901/webhooks/3.json',
    ]);
    expect(sent[0]!.body).toEqual({ resource_feedback: { state: 'success', feedback_generated_at: '2026-11-22T12:00:00Z' } });
  });

  it('are type errors when called wrongly', () => {
    const { methods } = recorder();
    const wrong = () => {
      void methods.createResourceFeedback({
        // @ts-expect-error: the path parameter is product_id
        params: { id: '7' },
        body: { resource_feedback: { state: 'success', feedback_generated_at: 'x' } },
      });
      void methods.createResourceFeedback({
        params: { product_id: '7' },
        // @ts-expect-error: state is one of two values
        body: { resource_feedback: { state: 'requires_actions', feedback_generated_at: 'x' } },
      });
    };
    expect(typeof wrong).toBe('function');
  });
});

describe('PathParamNames', () => {
  it('ends a parameter name where an identifier ends, as the server does', () => {
    expectTypeOf<import('./routes').PathParamNames<'/admin/openapi/:version/webhooks/:id.json'>>().toEqualTypeOf<'version' | 'id'>();
    expectTypeOf<import('./routes').PathParamNames<'/a/:product_id/b/:metafieldId.json'>>().toEqualTypeOf<'product_id' | 'metafieldId'>();
    expectTypeOf<import('./routes').PathParamNames<'/shop.json'>>().toEqualTypeOf<never>();
  });
});
