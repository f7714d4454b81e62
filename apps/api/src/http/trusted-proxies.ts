import { isIP } from 'node:net';

/**
 * decisions §12.6: PLATFORM_TRUST_PROXY, the addresses X-Forwarded-For/-Proto/-Host are believed
 * from: a comma-separated list of addresses or CIDRs (`10.0.0.5`, `10.0.0.0/24`, `fd00::/8`);
 * unset, empty or `false`: none. Fastify's `trustProxy` takes the list as it is (proxy-addr), and
 * believes the headers only on a connection from one of them.
 *
 * `true` (believe any hop, which the variable meant before issue 43) is refused: behind it any
 * client chooses the host and scheme of the links, sign-in URLs and cookies the service makes. So
 * are `/0` ranges, which are the same thing written as a CIDR.
 */
export type TrustedProxiesRead = { ok: true; value: string[] } | { ok: false; message: string };

const WHAT_TO_WRITE = "list the balancer's addresses or CIDRs, comma-separated (e.g. 10.0.0.5 or 10.0.0.0/24); unset trusts none";

export function readTrustedProxies(raw: string | undefined): TrustedProxiesRead {
  const text = (raw ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return { ok: true, value: [] };
  if (text === 'true' || text === '1') {
    return { ok: false, message: `'${text}' (believe X-Forwarded-* from any client) is no longer accepted: ${WHAT_TO_WRITE}` };
  }
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

function isAddressOrCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash === -1) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
