import { isIP } from 'node:net';

/**
 * decisions §12.6: PLATFORM_TRUST_PROXY, the addresses X-Forwarded-For/-Proto/-Host are believed
 * from: a comma-separated list of addresses or CIDRs (`10.0.0.5`, `10.0.0.0/24`, `fd00::/8`);
 * unset, empty or `false`: none. Fastify's `trustProxy` takes the list as it is (proxy-addr), and
 * believes the headers only on a connection from one of them.
 *
 * `true` believes every hop (decisions §1.4 names the switch so): kept for a deployment whose every
 * client is its own proxy, with a warning at start, since behind it any client chooses the host and
 * scheme of the links, sign-in URLs and cookies the service makes. The shipped configurations list
 * the balancer's addresses instead. A `/0` range is refused: it is `true` written as a CIDR, without
 * the warning.
 */
export type TrustedProxies = string[] | 'every-hop';
export type TrustedProxiesRead = { ok: true; value: TrustedProxies } | { ok: false; message: string };

const WHAT_TO_WRITE = "list the balancer's addresses or CIDRs, comma-separated (e.g. 10.0.0.5 or 10.0.0.0/24); unset trusts none";

/** What the start logs when every hop is believed. */
export const EVERY_HOP_WARNING =
  "PLATFORM_TRUST_PROXY=true: X-Forwarded-* is believed from any client, which then chooses the host and scheme of links and cookies; list the balancer's addresses instead";

export function readTrustedProxies(raw: string | undefined): TrustedProxiesRead {
  const text = (raw ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return { ok: true, value: [] };
  if (text === 'true' || text === '1') return { ok: true, value: 'every-hop' };
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0) return { ok: false, message: `not an address or CIDR: ${bad.map((b) => `'${b}'`).join(', ')}; ${WHAT_TO_WRITE}` };
  const everyone = entries.filter((entry) => /\/0+$/.test(entry));
  if (everyone.length > 0) return { ok: false, message: `${everyone.join(', ')} trusts every address: ${WHAT_TO_WRITE}` };
  return { ok: true, value: entries };
}

/** Fastify's `trustProxy` for the setting. */
export function fastifyTrustProxy(trusted: TrustedProxies): string[] | boolean {
  if (trusted === 'every-hop') return true;
  return trusted.length > 0 ? trusted : false;
}

function isAddressOrCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash === -1) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
