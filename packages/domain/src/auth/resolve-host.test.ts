import { describe, it, expect } from 'vitest';
import { isValidStoreHandle, resolveHost } from './resolve-host';

describe('isValidStoreHandle', () => {
  it('accepts 3 to 63 characters of a-z, 0-9 and inner hyphens', () => {
    for (const h of ['demo', 'abc', 'my-store-2', '123', 'a'.repeat(63), 'a-b']) {
      expect(isValidStoreHandle(h), h).toBe(true);
    }
  });

  it('rejects other lengths, characters and edge hyphens', () => {
    for (const h of ['', 'ab', 'a'.repeat(64), '-demo', 'demo-', 'Demo', 'my_store', 'my.store', 'dé', ' demo']) {
      expect(isValidStoreHandle(h), h).toBe(false);
    }
  });
});

describe('resolveHost', () => {
  it('takes the store handle from the first label under the base domain', () => {
    expect(resolveHost('demo.localhost:3000', 'localhost')).toEqual({ kind: 'store', handle: 'demo' });
    expect(resolveHost('demo.myplatform.com', 'myplatform.com')).toEqual({ kind: 'store', handle: 'demo' });
    expect(resolveHost('a.b.myplatform.com', 'myplatform.com')).toEqual({ kind: 'store', handle: 'a' });
  });

  it('ignores letter case and a trailing dot', () => {
    expect(resolveHost('DEMO.LocalHost.:3000', 'localhost')).toEqual({ kind: 'store', handle: 'demo' });
    expect(resolveHost('demo.myplatform.com', 'MyPlatform.com')).toEqual({ kind: 'store', handle: 'demo' });
  });

  it('is neutral for IP addresses, with or without a port', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:3000', '[::1]', '[::1]:3000', '::1', '[2001:db8::1]:443']) {
      expect(resolveHost(host, 'localhost'), host).toEqual({ kind: 'neutral' });
    }
  });

  it('is neutral for the bare base domain, other hosts and a missing host', () => {
    expect(resolveHost('localhost:3000', 'localhost')).toEqual({ kind: 'neutral' });
    expect(resolveHost('myplatform.com', 'myplatform.com')).toEqual({ kind: 'neutral' });
    expect(resolveHost('demo.example.com', 'myplatform.com')).toEqual({ kind: 'neutral' });
    expect(resolveHost('evilmyplatform.com', 'myplatform.com')).toEqual({ kind: 'neutral' });
    expect(resolveHost(undefined, 'localhost')).toEqual({ kind: 'neutral' });
    expect(resolveHost('', 'localhost')).toEqual({ kind: 'neutral' });
  });

  it('returns an odd first label as is, so it can never match a store', () => {
    expect(resolveHost('.localhost', 'localhost')).toEqual({ kind: 'store', handle: '' });
    expect(resolveHost('my_shop.localhost', 'localhost')).toEqual({ kind: 'store', handle: 'my_shop' });
  });
});
