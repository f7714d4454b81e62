// The SDK's live flow, one file that every runtime runs (Node, Bun, Deno, workerd): the packed
// package's main entry against the real API. It uses nothing but the SDK and what every one of them
// has (fetch, Web Crypto, TextEncoder, atob): no `process`, no `Buffer`, no Node module. It checks
// nothing itself: it returns what it saw, and the driver (runtimes.test.mjs) compares that with
// what every runtime must see. A step that throws is reported as `{ threw }`, and the next step runs.
import {
  createClient,
  createOAuth,
  PlatformApiError,
  PlatformError,
  PlatformNetworkError,
  verifyWebhook,
  WebhookVerificationError,
} from '@platform/sdk';

/** @param {import('./runtimes.test.mjs').FlowConfig} config */
export async function runFlow(config) {
  const base = { baseUrl: config.origin, apiVersion: config.apiVersion };
  const client = createClient({ ...base, accessToken: config.token });
  const result = {
    runtime: { process: typeof globalThis.process, Buffer: typeof globalThis.Buffer },
  };
  const step = async (name, run) => {
    try {
      result[name] = await run();
    } catch (error) {
      result[name] = { threw: `${error?.name}: ${error?.message}` };
    }
  };

  await step('list', async () => {
    const page = await client.products.list({ limit: 2, fields: ['title'] });
    return {
      titles: page.products.map((p) => p.title),
      fieldsOfFirst: Object.keys(page.products[0]).sort(),
      next: page.next && { limit: page.next.limit, fields: page.next.fields },
      second: (await client.products.page(page.next)).products.map((p) => p.title),
    };
  });

  await step('iterate', async () => {
    const titles = [];
    const fields = new Set();
    for await (const product of client.products.iterate({ limit: 2, fields: ['title', 'handle'] })) {
      titles.push(product.title);
      for (const key of Object.keys(product)) fields.add(key);
    }
    return { titles, fields: [...fields].sort() };
  });

  await step('apiError', async () => {
    const refused = createClient({ ...base, accessToken: 'not-a-token', retry: false });
    const error = await refused.shop.get().then(
      () => undefined,
      (e) => e,
    );
    return {
      isApiError: error instanceof PlatformApiError,
      isPlatformError: error instanceof PlatformError,
      name: error?.name,
      status: error?.status,
      method: error?.method,
      path: error?.path,
      traceIdIsUuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(error?.traceId)),
      traceIdInMessage: typeof error?.traceId === 'string' && error.message.includes(error.traceId),
    };
  });

  // No client-side pacing and a burst past the service's bucket: some requests meet 429, each is
  // retried after Retry-After (whole seconds), and every request ends in a 200.
  await step('rateLimited', async () => {
    const events = [];
    const burst = createClient({
      ...base,
      accessToken: config.burstToken,
      rateLimit: false,
      retry: { maxRetries: 10 },
      onEvent: (event) => events.push(event),
    });
    const results = await Promise.allSettled(Array.from({ length: config.burst }, () => burst.shop.get()));
    const retries = events.filter((e) => e.type === 'retry');
    return {
      fulfilled: results.filter((r) => r.status === 'fulfilled').length,
      met429: events.some((e) => e.type === 'response' && e.status === 429),
      retriedOnlyAfter429: retries.length > 0 && retries.every((e) => e.status === 429),
      waitedWholeSeconds: retries.every((e) => e.delayMs >= 1000 && e.delayMs % 1000 === 0),
    };
  });

  // Through a proxy that loses the first answer of each POST after the service committed it.
  await step('keyedPost', async () => {
    const events = [];
    const viaProxy = createClient({
      ...base,
      baseUrl: config.proxyOrigin,
      accessToken: config.token,
      retry: { baseDelayMs: 10 },
      onEvent: (event) => events.push(event),
    });
    const { definition } = await viaProxy.admin.createMetafieldDefinition({
      body: {
        definition: { owner_resource: 'products', namespace: 'runtimes', key: config.definitionKey, name: 'Runtime', type: 'boolean' },
      },
    });
    const keys = events.filter((e) => e.type === 'request').map((e) => e.idempotencyKey);
    let stored = 0;
    for await (const d of client.admin.listMetafieldDefinitions.iterate({ query: { owner_resource: 'products', namespace: 'runtimes' } })) {
      if (d.key === config.definitionKey) stored += 1;
    }
    return {
      key: definition.key,
      attempts: keys.length,
      oneKeyOnEveryAttempt: new Set(keys).size === 1 && typeof keys[0] === 'string',
      retryReasons: events.filter((e) => e.type === 'retry').map((e) => e.reason),
      stored,
    };
  });

  await step('webhook', async () => {
    const bytes = Uint8Array.from(atob(config.webhook.bodyBase64), (c) => c.charCodeAt(0));
    const headers = new Headers(config.webhook.headers);
    const exact = verifyWebhook(bytes, headers, config.webhook.secret);
    const asText = verifyWebhook(new TextDecoder().decode(bytes), config.webhook.headers, ['rotated-away', config.webhook.secret]);
    const changed = bytes.slice();
    changed[changed.length - 3] ^= 1;
    const refused = (() => {
      try {
        verifyWebhook(changed, headers, config.webhook.secret);
        return 'verified';
      } catch (error) {
        return { isVerificationError: error instanceof WebhookVerificationError, reason: error.reason, status: error.status };
      }
    })();
    return { topic: exact.topic, webhookId: exact.webhookId, payload: exact.payload, asTextTopic: asText.topic, changedByte: refused };
  });

  // The token call is signed over its raw body and a millisecond timestamp with the app secret; the
  // service (whose manual clock stands at config.oauth.serverNow) checks it. A wrong secret first.
  await step('oauth', async () => {
    const serverClock = {
      now: () => config.oauth.serverNow,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    };
    const options = { appKey: config.oauth.appKey, baseUrl: config.origin, clock: serverClock };
    const wrong = await createOAuth({ ...options, appSecret: 'not-the-secret' })
      .exchangeCode(config.handle, config.oauth.code)
      .then(
        () => 'accepted',
        (e) => ({ isApiError: e instanceof PlatformApiError, status: e.status }),
      );
    const token = await createOAuth({ ...options, appSecret: config.oauth.appSecret }).exchangeCode(config.handle, config.oauth.code);
    const shop = await createClient({ ...base, accessToken: token.accessToken }).shop.get();
    return { wrongSecret: wrong, scope: token.scope, handle: token.handle, shop: shop.handle };
  });

  await step('networkError', async () => {
    const nowhere = `127.0.0.1:${config.closedPort}`;
    const error = await createClient({ ...base, baseUrl: `http://${nowhere}`, accessToken: 't', retry: false })
      .shop.get()
      .then(
        () => undefined,
        (e) => e,
      );
    return {
      isNetworkError: error instanceof PlatformNetworkError,
      host: error?.host,
      messageNamesWhere: String(error?.message).startsWith(
        `GET /admin/openapi/${config.apiVersion}/merchants/shop.json at ${nowhere}: network error: `,
      ),
    };
  });

  return result;
}
