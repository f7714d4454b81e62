import { URL_MAX_BYTES, exceedsBytes } from './define-types';
import type { UrlValue } from './define-values';

// decisions §8.8: `url` is absolute with scheme http, https, mailto, sms or tel. Strict: the WHATWG
// parser quietly repairs input (drops tabs and newlines, trims spaces, reads `\` as `/`, accepts
// `http:example.com`), so such input is refused before it gets there.

export const URL_SCHEMES = ['http', 'https', 'mailto', 'sms', 'tel'] as const;
const SCHEMES: ReadonlySet<string> = new Set(URL_SCHEMES);
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

// The whole format as far as a pattern can say it, for the OpenAPI document: a URL parseUrlText
// accepts always matches (define-value-formats.property.test.ts). The scheme in any case; http and
// https then `//` and a host's first character (not `/`), no backslash; mailto, sms and tel no `//`;
// nowhere a space or a control character. What it cannot say: the WHATWG parser's verdict on the
// host (`is not a valid URL`), and the bound of URL_MAX_BYTES in UTF-8 bytes.
const anyCase = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c}]`).join('');
const CONTROLS = String.raw`\u0000-\u0020\u007f`;
const WEB = URL_SCHEMES.filter((scheme) => scheme.startsWith('http'));
const OTHER = URL_SCHEMES.filter((scheme) => !scheme.startsWith('http'));
const WEB_URL = `(?:${WEB.map(anyCase).join('|')})://[^/\\\\${CONTROLS}][^\\\\${CONTROLS}]*`;
const OTHER_URL = `(?:${OTHER.map(anyCase).join('|')}):(?:/|/?[^/${CONTROLS}][^${CONTROLS}]*)`;
export const URL_TEXT = new RegExp(`^(?:${WEB_URL}|${OTHER_URL})$`);

export const NOT_A_URL = 'must be an absolute URL with scheme http, https, mailto, sms or tel';
export const URL_TOO_LONG = `is too long (maximum is ${URL_MAX_BYTES} bytes)`;
const URL_HAS_SPACE = 'must not contain spaces or control characters';
const URL_INVALID = 'is not a valid URL';
const URL_AUTHORITY = 'must not start with // after mailto:, sms: or tel: (these URLs have no host)';

function hasSpaceOrControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Parses an absolute URL; `schemes` narrows the accepted schemes (allowed_domains takes http and https). */
export function parseUrlText(s: string, schemes: ReadonlySet<string> = SCHEMES): UrlValue | string {
  if (exceedsBytes(s, URL_MAX_BYTES)) return URL_TOO_LONG;
  const colon = s.indexOf(':');
  if (colon <= 0) return NOT_A_URL;
  const rawScheme = s.slice(0, colon);
  if (!SCHEME.test(rawScheme)) return NOT_A_URL;
  const scheme = rawScheme.toLowerCase();
  if (!schemes.has(scheme)) return NOT_A_URL;
  if (hasSpaceOrControl(s)) return URL_HAS_SPACE;
  const web = scheme === 'http' || scheme === 'https';
  if (web) {
    // `scheme://host...`: two slashes then a host, never a third slash or a backslash.
    if (!s.startsWith('//', colon + 1) || s.length === colon + 3 || s[colon + 3] === '/') return NOT_A_URL;
    if (s.indexOf('\\') >= 0) return URL_INVALID;
  } else if (s.length === colon + 1) return NOT_A_URL;
  // RFC 3986 reads `//` after the scheme as an authority, which mailto, sms and tel URLs do not have:
  // `mailto://a@b.c` parsed as user `a` at host `b.c`, and `mailto://a.|a./a@a.aa` not at all. Both
  // are refused, whatever the parser makes of the rest (docs/metafields.md).
  else if (s.startsWith('//', colon + 1)) return URL_AUTHORITY;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return URL_INVALID;
  }
  if (web && url.hostname === '') return URL_INVALID;
  return { kind: 'url', href: s, scheme, origin: web ? url.origin : null };
}
