// decisions §1.5: 3-63 characters of a-z, 0-9 and `-`, not starting or ending with `-`.
export const STORE_HANDLE = /^[a-z0-9](?:[a-z0-9-]{1,61})[a-z0-9]$/;

export function isValidStoreHandle(h: string): boolean {
  return typeof h === 'string' && STORE_HANDLE.test(h);
}

export type HostResolution = { kind: 'store'; handle: string } | { kind: 'neutral' };

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

function hostname(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) return name; // IPv6 literal, with or without a port
  const colon = name.indexOf(':');
  if (colon >= 0) {
    // One colon is `host:port`; more is a bare IPv6 address.
    if (name.indexOf(':', colon + 1) >= 0) return `[${name}]`;
    name = name.slice(0, colon);
  }
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * decisions §1.3: a Host under `.{baseDomain}` names a store by its first label (which the token's
 * store must then match); an IP address, the bare base domain or any other host is neutral and
 * the token alone decides. The label is returned as is, even if not a valid handle, so it never matches.
 */
export function resolveHost(host: string | undefined, baseDomain: string): HostResolution {
  if (host === undefined) return { kind: 'neutral' };
  const name = hostname(host);
  const base = hostname(baseDomain).replace(/^\.+/, '');
  if (name === '' || name.startsWith('[') || IPV4.test(name) || base === '') return { kind: 'neutral' };
  const suffix = `.${base}`;
  if (!name.endsWith(suffix)) return { kind: 'neutral' };
  const rest = name.slice(0, -suffix.length);
  const handle = rest.split('.')[0] ?? '';
  return { kind: 'store', handle };
}
