// The spec names only `open`; decisions §10 has the operator release an order, which emits
// `fulfillment_order/released`. Statuses here: `open` (created) -> `released`. Releasing is allowed
// from `open` only: a second release is refused (422), so one order emits its event once.
export const FULFILLMENT_ORDER_STATUSES = ['open', 'released'] as const;
export type FulfillmentOrderStatus = (typeof FULFILLMENT_ORDER_STATUSES)[number];

export type ReleaseResult = { ok: true; status: 'released' } | { ok: false; message: string };

export function releaseFulfillmentOrder(current: string): ReleaseResult {
  if (current === 'open') return { ok: true, status: 'released' };
  return { ok: false, message: `status: a fulfillment order can be released only while open (it is ${current})` };
}
