import { describe, expect, it } from 'vitest';
import { oauthContract, ZOAuthCancelResponse, ZOAuthErrorResponse, ZOAuthHeaders, ZOAuthTokenResponse } from './oauth.contract';

describe('OAuth token calls (decisions §5.2)', () => {
  it('are three signed POSTs under /admin/oauth/token with the route keys the SDK uses', () => {
    const routes = Object.entries(oauthContract).map(([key, route]) => `${key} ${route.method} ${route.path}`);
    expect(routes).toEqual([
      'createOAuthToken POST /admin/oauth/token/create',
      'refreshOAuthToken POST /admin/oauth/token/refresh',
      'cancelOAuthToken POST /admin/oauth/token/cancel',
    ]);
    expect(Object.keys(ZOAuthHeaders.shape)).toEqual(['appkey', 'timestamp', 'sign']);
  });

  it('take the envelope of decisions §5.2 as written there, and nothing looser', () => {
    const sample = {
      code: 200,
      i18nCode: 'SUCCESS',
      message: 'ok',
      data: { accessToken: 'abc', expireTime: '2026-11-22T22:05:01+08:00', scope: 'write_products,read_inventory' },
    };
    expect(ZOAuthTokenResponse.parse(sample)).toEqual(sample);
    expect(ZOAuthTokenResponse.safeParse({ ...sample, code: '200' }).success).toBe(false);
    expect(ZOAuthTokenResponse.safeParse({ ...sample, data: { ...sample.data, expireTime: 'tomorrow' } }).success).toBe(false);
    expect(ZOAuthCancelResponse.safeParse({ ...sample, data: null }).success).toBe(true);
    expect(
      ZOAuthErrorResponse.safeParse({ code: 401, i18nCode: 'INVALID_SIGNATURE', message: 'sign does not match the request', data: null })
        .success,
    ).toBe(true);
  });
});
