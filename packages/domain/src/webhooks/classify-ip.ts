// decisions §11.2: webhooks go to public addresses only (unless PLATFORM_WEBHOOK_ALLOW_PRIVATE=true).
// The API checks a subscription's address when it is written; the sender checks the IP it actually
// connects to (DNS rebinding), with the same function.

/**
 * An IPv4 address as a 32-bit number, in any spelling `inet_aton` accepts (and so some resolvers and
 * HTTP clients): 1 to 4 parts, each decimal, octal (leading 0) or hex (0x); the last part fills the
 * remaining bytes (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`). Undefined for anything else.
 */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  for (const v of values) if (v > 255) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  let result = 0;
  for (const v of values) result = result * 256 + v;
  return result * 2 ** (8 * lastBytes) + last;
}

/** An IPv6 address as eight 16-bit groups (brackets and a `%zone` allowed), or undefined. */
export function parseIpv6(text: string): number[] | undefined {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  // A dotted IPv4 address in the last 32 bits (`::ffff:127.0.0.1`), strict dotted-quad only here:
  // rewritten as two hex groups, then parsed like the rest.
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(last)) return undefined;
    const bytes = last.split('.').map(Number);
    if (bytes.some((b) => b > 255)) return undefined;
    const hex = (hi: number, lo: number) => (hi * 256 + lo).toString(16);
    s = `${s.slice(0, lastColon + 1)}${hex(bytes[0]!, bytes[1]!)}:${hex(bytes[2]!, bytes[3]!)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    for (const g of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  if (head === undefined) return undefined;
  if (halves.length === 1) {
    const groups = head;
    return groups.length === 8 ? groups : undefined;
  }
  const rest = groupsOf(halves[1]!);
  if (rest === undefined) return undefined;
  const known = head.length + rest.length;
  if (known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest];
}

const v4 = (a: number, b: number, c: number, d: number): number => ((a * 256 + b) * 256 + c) * 256 + d;

/** [network, prefix length] of every IPv4 range that is not a public unicast destination. */
const PRIVATE_V4: readonly (readonly [number, number])[] = [
  [v4(0, 0, 0, 0), 8], // "this network", 0.0.0.0 unspecified
  [v4(10, 0, 0, 0), 8], // private
  [v4(100, 64, 0, 0), 10], // carrier-grade NAT
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(169, 254, 0, 0), 16], // link-local (cloud metadata services live here)
  [v4(172, 16, 0, 0), 12], // private
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24], // documentation
  [v4(192, 88, 99, 0), 24], // 6to4 relay anycast
  [v4(192, 168, 0, 0), 16], // private
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(198, 51, 100, 0), 24], // documentation
  [v4(203, 0, 113, 0), 24], // documentation
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, and 255.255.255.255 broadcast
];

function inRange(ip: number, [network, bits]: readonly [number, number]): boolean {
  const size = 2 ** (32 - bits);
  return ip >= network && ip < network + size;
}

function isPrivateV4(ip: number): boolean {
  return PRIVATE_V4.some((range) => inRange(ip, range));
}

function isPrivateV6(g: readonly number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embedded = g6 * 65536 + g7;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return isPrivateV4(embedded); // ::ffff:a.b.c.d IPv4-mapped
  if (zeroTo(6)) return true; // :: unspecified, ::1 loopback, ::a.b.c.d IPv4-compatible (deprecated)
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return isPrivateV4(embedded); // ::ffff:0:a.b.c.d IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPrivateV4(embedded); // NAT64
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64
  if (g0 === 0x2002) return isPrivateV4(g1 * 65536 + g2); // 6to4 carries an IPv4 address
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only
  if (g0 === 0x2001 && g1 < 0x200) return true; // IETF protocol assignments (Teredo included)
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return true; // documentation (3fff::/20)
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/**
 * decisions §11.2: true when `ip` is not a public unicast address: private, loopback, link-local,
 * unique-local, carrier-grade NAT, multicast, unspecified, documentation or reserved, IPv4 or IPv6
 * (IPv4-mapped, -compatible, NAT64 and 6to4 forms are judged by the IPv4 address they carry). Any
 * IPv4 spelling `inet_aton` reads counts (`2130706433`, `0x7f.1`). Text that is no IP address at
 * all is true too: a caller that passes something else must not be let through by mistake.
 */
export function isPrivateAddress(ip: string): boolean {
  const text = ip.trim();
  const four = parseIpv4(text);
  if (four !== undefined) return isPrivateV4(four);
  const six = parseIpv6(text);
  if (six !== undefined) return isPrivateV6(six);
  return true;
}

/** True when `text` is an IP address in any spelling `isPrivateAddress` reads. */
export function isIpAddress(text: string): boolean {
  return parseIpv4(text) !== undefined || parseIpv6(text) !== undefined;
}
