import { describe, expect, it } from 'vitest';
import { releaseFulfillmentOrder } from './release-fulfillment-order';

describe('releaseFulfillmentOrder', () => {
  it('moves open to released and refuses anything else', () => {
    expect(releaseFulfillmentOrder('open')).toEqual({ ok: true, status: 'released' });
    expect(releaseFulfillmentOrder('released')).toMatchObject({ ok: false, message: expect.stringContaining('only while open') });
  });
});
