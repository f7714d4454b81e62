import { describe, expect, it } from 'vitest';
import { checkRedirectUrl } from './check-redirect-url';

describe('checkRedirectUrl (decisions §5.2; issue 14, finding 4)', () => {
  it('accepts absolute http(s) URLs and gives the origin as parsed', () => {
    expect(checkRedirectUrl('https://app.example.com/oauth/callback?x=1')).toEqual({ ok: true, origin: 'https://app.example.com' });
    expect(checkRedirectUrl('http://127.0.0.1:4000/cb')).toEqual({ ok: true, origin: 'http://127.0.0.1:4000' });
    expect(checkRedirectUrl('https://[::1]:8443/cb')).toEqual({ ok: true, origin: 'https://[::1]:8443' });
    expect(checkRedirectUrl('https://APP.Example.com/cb')).toEqual({ ok: true, origin: 'https://app.example.com' });
  });

  it('refuses what does not parse: a port out of range, an unclosed IPv6 literal', () => {
    for (const url of ['https://x:99999/cb', 'https://[::1/cb', 'https://', 'app.example.com/cb']) {
      expect(checkRedirectUrl(url).ok, url).toBe(false);
    }
  });

  it('refuses a host a Content-Security-Policy source cannot hold', () => {
    for (const url of [
      'http://a;script-src/cb',
      'https://a,b.example/cb',
      "https://a'b.example/cb",
      'https://a_b.example/cb',
      'https://a%3Bb.example/cb',
    ]) {
      expect(checkRedirectUrl(url).ok, url).toBe(false);
    }
  });

  it('refuses other schemes, credentials, fragments and what the parser would rewrite', () => {
    for (const url of [
      'javascript:alert(1)',
      'ftp://app.example.com/cb',
      'https://user:pw@app.example.com/cb',
      'https://app.example.com/cb#x',
      'https://app.example.com/c b',
      'https:\\\\app.example.com/cb',
      'https:/app.example.com/cb',
      'https://app.example.com/"cb',
    ]) {
      expect(checkRedirectUrl(url).ok, url).toBe(false);
    }
  });
});
