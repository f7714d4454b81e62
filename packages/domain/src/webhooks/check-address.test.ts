import { describe, expect, it } from 'vitest';
import { checkWebhookAddress } from './check-address';

const strict = { allowPrivate: false };
const relaxed = { allowPrivate: true };
const message = (address: string, options = strict) => {
  const r = checkWebhookAddress(address, options);
  return r.ok ? undefined : r.message;
};

describe('checkWebhookAddress (decisions §11.2)', () => {
  it('accepts a public https URL and returns its normal form', () => {
    const r = checkWebhookAddress('HTTPS://Hooks.Example.com/in?x=1', strict);
    expect(r).toEqual({ ok: true, value: { url: 'https://hooks.example.com/in?x=1', host: 'hooks.example.com', isIp: false } });
    expect(checkWebhookAddress('https://8.8.8.8:8443/h', strict).ok).toBe(true);
    expect(checkWebhookAddress('https://[2606:4700::1]/h', strict).ok).toBe(true);
  });

  it('refuses http:// unless private targets are allowed', () => {
    expect(message('http://example.com/h')).toMatch(/https/);
    expect(message('http://example.com/h', relaxed)).toBeUndefined();
  });

  it('refuses other schemes, relative and malformed URLs in both modes', () => {
    for (const options of [strict, relaxed]) {
      for (const bad of [
        'ftp://example.com/',
        'example.com/hook',
        '/hook',
        'https:example.com',
        'https:///x',
        'https://',
        'javascript:alert(1)',
        'https:\\\\example.com',
      ]) {
        expect(message(bad, options), bad).toBeDefined();
      }
    }
  });

  it('refuses user info, fragments, spaces and over-long URLs', () => {
    expect(message('https://user:pw@example.com/')).toMatch(/user name or password/);
    expect(message('https://user@example.com/')).toMatch(/user name or password/);
    expect(message('https://example.com/#frag')).toMatch(/fragment/);
    expect(message('https://example.com/#')).toMatch(/fragment/);
    expect(message('https://example.com/a b')).toMatch(/spaces/);
    expect(message(' https://example.com/')).toMatch(/spaces/);
    expect(message(`https://example.com/${'a'.repeat(2048)}`)).toMatch(/too long/);
    expect(message('')).toMatch(/blank/);
  });

  it.each([
    'https://localhost/h',
    'https://LOCALHOST./h',
    'https://api.localhost/h',
    'https://127.0.0.1/h',
    'https://127.1/h',
    'https://2130706433/h',
    'https://0x7f000001/h',
    'https://0177.0.0.1/h',
    'https://10.0.0.5/h',
    'https://169.254.169.254/latest',
    'https://100.64.1.1/h',
    'https://0.0.0.0/h',
    'https://224.0.0.1/h',
    'https://[::1]/h',
    'https://[::ffff:127.0.0.1]/h',
    'https://[fe80::1]/h',
    'https://[fd00::1]/h',
    'https://[::]/h',
    'https://[ff02::1]/h',
  ])('refuses the private target %s unless allowed', (address) => {
    expect(message(address)).toMatch(/localhost|private/);
    expect(message(address, relaxed)).toBeUndefined();
  });
});
