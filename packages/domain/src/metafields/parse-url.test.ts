import { describe, expect, it } from 'vitest';
import { NOT_A_URL, URL_TOO_LONG, parseUrlText } from './parse-url';

describe('url (decisions §8.8)', () => {
  it('accepts absolute URLs with scheme http, https, mailto, sms or tel', () => {
    expect(parseUrlText('https://example.com/a?b=c#d')).toEqual({
      kind: 'url',
      href: 'https://example.com/a?b=c#d',
      scheme: 'https',
      origin: 'https://example.com',
    });
    expect(parseUrlText('http://example.com:8080')).toMatchObject({ origin: 'http://example.com:8080' });
    expect(parseUrlText('mailto:someone@example.com')).toMatchObject({ scheme: 'mailto', origin: null });
    expect(parseUrlText('sms:+15551234567')).toMatchObject({ scheme: 'sms', origin: null });
    expect(parseUrlText('tel:+1-555-123-4567')).toMatchObject({ scheme: 'tel', origin: null });
  });

  it('keeps the text as written and normalises only the origin', () => {
    const url = parseUrlText('HTTPS://Example.COM:443/Path');
    expect(url).toMatchObject({ href: 'HTTPS://Example.COM:443/Path', scheme: 'https', origin: 'https://example.com' });
    expect(parseUrlText('http://example.com:80/')).toMatchObject({ origin: 'http://example.com' });
  });

  it('refuses other schemes and relative or bare references', () => {
    for (const bad of [
      'ftp://example.com',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/plain,x',
      'example.com',
      '/path',
      '//example.com',
      'https',
      '',
      ':x',
    ]) {
      expect(parseUrlText(bad), bad).toBe(NOT_A_URL);
    }
  });

  it('refuses // after mailto:, sms: or tel:, whether or not the rest parses as a host (issue 8 finding 7)', () => {
    for (const bad of ['mailto://a.|a./a@a.aa', 'mailto://someone@example.com', 'sms://+15551234567', 'TEL://+1555']) {
      expect(parseUrlText(bad), bad).toBe('must not start with // after mailto:, sms: or tel: (these URLs have no host)');
    }
    // One slash, or slashes later in the address, are ordinary characters of these URLs.
    expect(parseUrlText('mailto:a/b@example.com')).toMatchObject({ scheme: 'mailto' });
  });

  it('refuses input the URL parser would quietly repair', () => {
    for (const bad of ['https:example.com', 'https:/example.com', 'https:///example.com', 'https://', 'mailto:']) {
      expect(parseUrlText(bad), bad).toBe(NOT_A_URL);
    }
    expect(parseUrlText(' https://example.com')).toBe(NOT_A_URL);
    for (const bad of ['https://example.com ', 'https://exa\tmple.com', 'https://example.com/a\nb', 'https://example.com/a b']) {
      expect(parseUrlText(bad), bad).toBe('must not contain spaces or control characters');
    }
    expect(parseUrlText('https://example.com\\path')).toBe('is not a valid URL');
    expect(parseUrlText('https://exa mple.com'.replace(' ', '%'))).toBe('is not a valid URL');
  });

  it('is at most 2 KB', () => {
    const base = 'https://example.com/';
    expect(typeof parseUrlText(base + 'a'.repeat(2048 - base.length))).toBe('object');
    expect(parseUrlText(base + 'a'.repeat(2049 - base.length))).toBe(URL_TOO_LONG);
    expect(parseUrlText(base + 'é'.repeat(1015))).toBe(URL_TOO_LONG);
  });

  it('narrows the schemes on request', () => {
    expect(parseUrlText('mailto:a@b.c', new Set(['http', 'https']))).toBe(NOT_A_URL);
  });
});
