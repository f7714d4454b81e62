import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse, parseRetryAfter, PlatformApiError } from './errors';

describe(apiErrorFromResponse.name, () => {
  it("takes status, the body's errors message and the traceId header (decisions §4, §3.2)", async () => {
    const response = new Response(JSON.stringify({ errors: 'The access token has expired' }), {
      status: 401,
      statusText: 'Unauthorized',
      headers: { 'content-type': 'application/json; charset=utf-8', traceId: '3f1c2a9e-0000-4000-8000-000000000001' },
    });
    const error = await apiErrorFromResponse(response);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PlatformApiError');
    expect(error.status).toBe(401);
    expect(error.errors).toBe('The access token has expired');
    expect(error.traceId).toBe('3f1c2a9e-0000-4000-8000-000000000001');
    expect(error.message).toBe('HTTP 401: The access token has expired (traceId 3f1c2a9e-0000-4000-8000-000000000001)');
    expect(error).not.toHaveProperty('retryAfter');
  });

  it('uses the status text when the body is not JSON (a proxy page)', async () => {
    const error = await apiErrorFromResponse(new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(error.status).toBe(502);
    expect(error.errors).toBe('Bad Gateway');
    expect(error.traceId).toBeUndefined();
  });

  it('uses the status text when JSON carries no errors string', async () => {
    const error = await apiErrorFromResponse(
      new Response(JSON.stringify({ errors: { title: ['blank'] } }), { status: 422, statusText: 'Unprocessable Entity' }),
    );
    expect(error.errors).toBe('Unprocessable Entity');
  });

  it('names the status when there is neither a body nor a status text', async () => {
    const error = await apiErrorFromResponse(new Response(null, { status: 503 }));
    expect(error.errors).toBe('HTTP 503');
  });

  it('reads Retry-After of a 429 in seconds (decisions §7.2)', async () => {
    const response = new Response(JSON.stringify({ errors: 'Too many requests' }), { status: 429, headers: { 'Retry-After': '3' } });
    const error = await apiErrorFromResponse(response);
    expect(error.status).toBe(429);
    expect(error.errors).toBe('Too many requests');
    expect(error.retryAfter).toBe(3);
  });
});

describe(parseRetryAfter.name, () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('1')).toBe(1);
    expect(parseRetryAfter(' 120 ')).toBe(120);
  });

  it('reads an HTTP date as the seconds left until it, rounded up', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:10 GMT', now + 9_500)).toBe(1);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
  });

  it('gives undefined when absent or unreadable', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-5')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
  });
});
