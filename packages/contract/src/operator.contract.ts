import { z } from 'zod';
import { SCOPES } from '@platform/domain/limits';
import { ZId, ZIsoTime, ZStoreStatus } from './common';
import { documented } from './openapi-json-schema';
import { EMAIL_RULES, NOT_BLANK, STORE_HANDLE_RULES, STORE_NAME_RULES, TIME_RULES, timeZoneRules, urlRules } from './rules';
import { ZProduct, ZProductInput } from './products.contract';
import { c, operatorRouterOptions } from './router';

/*
 * decisions §10: bodies and answers are wrapped in the resource's name; action bodies (install's
 * scopes, the clock) are not. Request schemas give shapes only: the server checks handles, time
 * zones, currencies, scopes and times with the domain's rules and owns those messages.
 */

export const ZOperatorStore = z.object({
  id: ZId,
  handle: z.string(),
  name: z.string(),
  domain: z.string(),
  email: z.string(),
  customer_email: z.string(),
  currency: z.string(),
  iana_timezone: z.string(),
  status: ZStoreStatus,
  plan_expires_at: ZIsoTime.nullable(),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type OperatorStore = z.infer<typeof ZOperatorStore>;

/** decisions §12.9: store input as the service checks it (the domain's rules, stated here for the document). */
const storeName = () => documented(z.string().describe('No control characters (line breaks, tabs); not blank.'), STORE_NAME_RULES);
const timeZone = () => documented(z.string().describe('An IANA time zone name.'), timeZoneRules);
const currency = () => documented(z.string().describe('An ISO 4217 code such as USD.'), { pattern: '^[A-Z]{3}$', examples: ['USD'] });
const email = (note: string) => documented(z.string().describe(`An e-mail address (decisions §12.9). ${note}`), EMAIL_RULES);

export const ZStoreCreate = z.object({
  handle: documented(
    z.string().describe('3-63 characters of a-z, 0-9 and -, not starting or ending with - (decisions §1.5). A handle in use is 422.'),
    STORE_HANDLE_RULES,
  ),
  name: storeName(),
  iana_timezone: timeZone().optional().describe('Default UTC.'),
  currency: currency().optional().describe('Default USD.'),
  email: email('Default owner@{handle}.{base domain}.').optional(),
  customer_email: email('Default: email.').optional(),
});
export type StoreCreate = z.infer<typeof ZStoreCreate>;

export const ZStoreUpdate = z.object({
  status: ZStoreStatus.optional(),
  plan_expires_at: documented(z.string(), TIME_RULES)
    .nullable()
    .optional()
    .describe('ISO 8601 with an offset or Z; null removes the expiry.'),
  name: storeName().optional(),
  iana_timezone: timeZone().optional(),
  currency: currency().optional(),
  email: email('').optional(),
  customer_email: email('').optional(),
});
export type StoreUpdate = z.infer<typeof ZStoreUpdate>;

export const ZAppKind = z.enum(['private', 'custom', 'public']);
export type AppKind = z.infer<typeof ZAppKind>;

export const ZOperatorApp = z.object({
  id: ZId,
  name: z.string(),
  kind: ZAppKind,
  app_key: z.string(),
  app_secret: z.string(),
  scopes: z.array(z.string()),
  redirect_urls: z.array(z.string()),
  store_handle: z.string().nullable(),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type OperatorApp = z.infer<typeof ZOperatorApp>;

const scopeList = () => z.array(documented(z.string(), { enum: [...SCOPES] })).describe('Scopes of decisions §5.5.');

export const ZAppCreate = documented(
  z.object({
    name: documented(z.string(), { pattern: NOT_BLANK, examples: ['Inventory sync'] }),
    kind: ZAppKind,
    scopes: scopeList(),
    redirect_urls: z.array(documented(z.string(), urlRules('http(s)'))).optional(),
    store_handle: documented(z.string(), STORE_HANDLE_RULES)
      .optional()
      .describe(
        'Required for a private app: the store it belongs to. A custom app may name its one store; otherwise its first approval binds it.',
      ),
  }),
  {
    // A private app names its store; a public one, installed on many stores, names none.
    allOf: [
      { if: { properties: { kind: { const: 'private' } } }, then: { required: ['store_handle'] } },
      { if: { properties: { kind: { const: 'public' } } }, then: { not: { required: ['store_handle'] } } },
    ],
  },
);
export type AppCreate = z.infer<typeof ZAppCreate>;

export const ZAccessToken = z.object({
  access_token: z.string(),
  expires_at: ZIsoTime,
});
export type AccessToken = z.infer<typeof ZAccessToken>;

/** One product, or up to 1,000 at once. */
export const ZProductsCreate = z.union([
  z.object({ product: ZProductInput }),
  z.object({ products: z.array(ZProductInput).min(1).max(1000) }),
]);
export type ProductsCreate = z.infer<typeof ZProductsCreate>;

/** Exactly one of the two: a move by seconds (negative moves back), or an instant. */
const ZClockSetShape = z
  .object({
    advance_seconds: z.number().optional(),
    now: documented(z.string(), TIME_RULES).optional().describe('ISO 8601 with an offset or Z.'),
  })
  .strict();
export const ZClockSet = documented(ZClockSetShape, { oneOf: [{ required: ['advance_seconds'] }, { required: ['now'] }] }).refine(
  (body) => (body.advance_seconds === undefined) !== (body.now === undefined),
  { message: 'send exactly one of advance_seconds and now' },
);
export type ClockSet = z.infer<typeof ZClockSet>;

const ZClock = z.object({ now: ZIsoTime });

export const operatorContract = c.router(
  {
    createStore: {
      method: 'POST',
      path: '/stores',
      body: z.object({ store: ZStoreCreate }),
      responses: { 201: z.object({ store: ZOperatorStore }) },
      summary: 'Create a store',
    },
    getStore: {
      method: 'GET',
      path: '/stores/:handle',
      responses: { 200: z.object({ store: ZOperatorStore }) },
      summary: 'Read a store',
    },
    updateStore: {
      method: 'PATCH',
      path: '/stores/:handle',
      body: z.object({ store: ZStoreUpdate }),
      responses: { 200: z.object({ store: ZOperatorStore }) },
      summary: 'Change a store: status, plan expiry, name, zone, currency, e-mails',
    },
    createApp: {
      method: 'POST',
      path: '/apps',
      body: z.object({ app: ZAppCreate }),
      responses: {
        // A private app's answer also carries its first token beside the app (decisions §10).
        201: z.object({ app: ZOperatorApp }).merge(ZAccessToken.partial()),
      },
      summary: 'Create an app',
    },
    installApp: {
      method: 'POST',
      path: '/stores/:handle/apps/:appId/install',
      body: z.object({ scopes: documented(scopeList(), { minItems: 1 }) }),
      responses: { 201: z.object({ code: z.string() }) },
      summary: "The merchant's approval without the browser: an OAuth code for a custom or public app",
    },
    createAdminSession: {
      method: 'POST',
      path: '/stores/:handle/admin_sessions',
      body: c.noBody(),
      responses: { 201: z.object({ url: z.string().describe("Open in a browser: signs in to the store's merchant pages.") }) },
      summary: "A one-time sign-in link to the store's merchant pages (10 minutes, single use)",
    },
    refreshAppToken: {
      method: 'POST',
      path: '/stores/:handle/apps/:appId/token/refresh',
      body: c.noBody(),
      responses: { 200: ZAccessToken },
      summary: "Refresh a private app's token; the previous one stays valid 5 more minutes",
    },
    deleteApp: {
      method: 'DELETE',
      path: '/stores/:handle/apps/:appId',
      responses: { 200: z.object({}) },
      summary: 'Uninstall or delete an app; its tokens are invalid at once',
    },
    createProducts: {
      method: 'POST',
      path: '/stores/:handle/products',
      body: ZProductsCreate,
      responses: {
        201: z.union([z.object({ product: ZProduct }), z.object({ products: z.array(ZProduct) })]),
      },
      summary: 'Create one product, or up to 1,000',
    },
    updateProduct: {
      method: 'PATCH',
      path: '/stores/:handle/products/:id',
      body: z.object({ product: ZProductInput.partial() }),
      responses: { 200: z.object({ product: ZProduct }) },
      summary: 'Change a product (its updated_at changes)',
    },
    getClock: {
      method: 'GET',
      path: '/clock',
      responses: { 200: ZClock },
      summary: "The service's clock",
    },
    setClock: {
      method: 'POST',
      path: '/clock',
      body: ZClockSet,
      responses: { 200: ZClock },
      summary: 'Move the clock (only when PLATFORM_CLOCK=manual; 404 otherwise)',
    },
  },
  operatorRouterOptions,
);
