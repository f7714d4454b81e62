/**
 * An app's OAuth redirect URL (decisions §5.2, §10), judged by the WHATWG URL parser rather than a
 * pattern: absolute http(s), no credentials, no fragment (RFC 6749 §3.1.2), a host of DNS letters,
 * digits, hyphens and dots or an IP literal. The consent page puts the URL's origin into its
 * Content-Security-Policy (`form-action`), so the origin is rebuilt from the parsed parts and may
 * hold nothing a CSP source expression cannot (`;`, `,`, spaces, quotes): issue 14, finding 4.
 */
export type RedirectUrlCheck = { ok: true; origin: string } | { ok: false; message: string };

const DNS_HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/;
const IPV6_HOST = /^\[[0-9a-f:.]+\]$/;

export function checkRedirectUrl(url: unknown): RedirectUrlCheck {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, message: 'must be an http(s) URL' };
  if (url.length > 2048) return { ok: false, message: 'must be at most 2048 characters' };
  if (url.includes('#')) return { ok: false, message: 'must not include a fragment (#)' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: 'must be an absolute http(s) URL (this one does not parse: check the host and the port)' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { ok: false, message: 'must be an http(s) URL' };
  // What the parser would silently rewrite (spaces, backslashes, a missing slash) is refused, so
  // the URL the app registered is the one it is compared with and redirected to.
  if (!url.startsWith(`${parsed.protocol}//`) || /[\s\\<>"'`^{}|]/.test(url)) {
    return { ok: false, message: 'must be written as a plain absolute URL (no spaces, quotes or backslashes)' };
  }
  if (parsed.username || parsed.password) return { ok: false, message: 'must not include a user name or password' };
  if (!DNS_HOST.test(parsed.hostname) && !IPV6_HOST.test(parsed.hostname)) {
    return { ok: false, message: 'must have a host of letters, digits, hyphens and dots, or an IP address' };
  }
  return { ok: true, origin: `${parsed.protocol}//${parsed.host}` };
}
