import { isIpAddress, isPrivateAddress } from './classify-ip';

import { MAX_WEBHOOK_ADDRESS_LENGTH } from './define-topics';

export { MAX_WEBHOOK_ADDRESS_LENGTH };

export interface WebhookAddress {
  /** The address as stored and called: the parser's normal form (`HTTPS://Example.com` -> `https://example.com/`). */
  url: string;
  /** Host name or IP literal, without IPv6 brackets. */
  host: string;
  /** True when the host is an IP literal (the sender then connects to exactly this IP). */
  isIp: boolean;
}

export type WebhookAddressResult = { ok: true; value: WebhookAddress } | { ok: false; message: string };

function hasSpaceOrControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** `localhost` and every name under it resolve to the machine itself (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * decisions §11.2: an absolute `https://` URL with a host, no user name or password, no fragment, at
 * most 2,048 characters, whose host is not `localhost` and not a private IP literal (isPrivateAddress).
 * With `allowPrivate` (PLATFORM_WEBHOOK_ALLOW_PRIVATE=true: development and tests) `http://` and
 * private targets pass too. A host name is judged again at connect time on the IP it resolves to.
 * Messages carry no field name.
 */
export function checkWebhookAddress(address: string, options: { allowPrivate: boolean }): WebhookAddressResult {
  if (address.length === 0) return { ok: false, message: "can't be blank" };
  if (address.length > MAX_WEBHOOK_ADDRESS_LENGTH) {
    return { ok: false, message: `is too long (maximum is ${MAX_WEBHOOK_ADDRESS_LENGTH} characters)` };
  }
  // The URL parser quietly drops tabs and newlines and trims spaces: refuse them instead.
  if (hasSpaceOrControl(address)) return { ok: false, message: 'must not contain spaces or control characters' };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(address)?.[1]?.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') return { ok: false, message: 'must be an absolute https:// URL' };
  if (scheme === 'http' && !options.allowPrivate)
    return { ok: false, message: 'must use https:// (http:// is allowed only in development)' };
  if (!/^[A-Za-z]+:\/\/[^/\\]/.test(address) || address.includes('\\')) {
    return { ok: false, message: 'must be an absolute https:// URL' };
  }
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { ok: false, message: 'is not a valid URL' };
  }
  if (url.username !== '' || url.password !== '' || /^[A-Za-z]+:\/\/[^/?#]*@/.test(address)) {
    return { ok: false, message: 'must not contain a user name or password' };
  }
  if (address.includes('#')) return { ok: false, message: 'must not contain a fragment (#)' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, message: 'must name a host' };
  const isIp = isIpAddress(host);
  if (!options.allowPrivate) {
    if (isLocalhostName(host)) return { ok: false, message: 'must not point at localhost' };
    if (isIp && isPrivateAddress(host)) {
      return { ok: false, message: `must not point at a private, loopback, link-local or reserved address (${host})` };
    }
  }
  if (url.href.length > MAX_WEBHOOK_ADDRESS_LENGTH) {
    return { ok: false, message: `is too long (maximum is ${MAX_WEBHOOK_ADDRESS_LENGTH} characters)` };
  }
  return { ok: true, value: { url: url.href, host, isIp } };
}
