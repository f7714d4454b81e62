import { z } from 'zod';
import { ZId, ZIsoTime, ZStoreStatus, type AdminRouteMetadata } from './common';
import { adminRouterOptions, c } from './router';

/** decisions §3.6: the store information read. Times carry the offset of `iana_timezone`. */
export const ZShop = z.object({
  id: ZId,
  name: z.string(),
  handle: z.string(),
  domain: z.string(),
  email: z.string(),
  customer_email: z.string(),
  currency: z.string().describe('ISO 4217 code.'),
  iana_timezone: z.string().describe('The zone every time of this store is rendered in.'),
  biz_store_status: ZStoreStatus,
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type Shop = z.infer<typeof ZShop>;

export const shopContract = c.router(
  {
    getShop: {
      method: 'GET',
      path: '/merchants/shop.json',
      responses: {
        200: z.object({ data: ZShop }),
      },
      summary: 'Read the store information',
      metadata: { scope: 'read_store_information' } satisfies Omit<AdminRouteMetadata, 'auth'>,
    },
  },
  adminRouterOptions,
);
