import { formatInZone, parseIsoInstant } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Text made safe for HTML (element content and quoted attribute values). */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** HTML already escaped: what `html` returns, and what it inserts without escaping again. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * The only way pages build markup: every interpolated value is escaped unless it is itself `Html`
 * (or an array of them), so a store or app name can never inject markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value);
}

export interface PageOptions {
  title: string;
  /** The store the page belongs to, shown in the header. */
  storeName?: string;
  /** A signed-in merchant's page gets the sign-out button (it needs the session's form token). */
  signOut?: { formToken: string };
  /** The merchant admin's navigation bar (signed-in pages only), with this section marked current (`true`: none is). */
  section?: Section | true;
  body: Html;
}

/** The sections of the navigation bar (issue 18): Home is the store's name in the header. */
export type Section = 'home' | 'products' | 'definitions' | 'invalid' | 'apps';

const SECTIONS: readonly { section: Section; href: string; label: string }[] = [
  { section: 'products', href: '/admin/products', label: 'Products' },
  { section: 'definitions', href: '/admin/metafield_definitions', label: 'Metafield definitions' },
  { section: 'invalid', href: '/admin/metafields?valid=false', label: 'Invalid values' },
  { section: 'apps', href: '/admin/apps', label: 'Apps' },
];

/**
 * The one layout of the merchant pages: a skip link, the header (the store's name, leading home),
 * the navigation bar on signed-in pages, the main column, the shared style sheet. Scripts are
 * added by a page itself, from /admin/assets/ only.
 */
export function layout(page: PageOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}${page.storeName ? html` · ${page.storeName}` : ''}</title>
<link rel="stylesheet" href="/admin/assets/admin.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
  ${page.section ? html`<a class="brand" href="/admin">${page.storeName ?? 'Platform'}</a>` : html`<span class="brand">${page.storeName ?? 'Platform'}</span>`}
  ${
    page.signOut
      ? html`<form method="post" action="/admin/sign-out" class="inline"><input type="hidden" name="form_token" value="${page.signOut.formToken}"><button type="submit" class="link">Sign out</button></form>`
      : ''
  }
</header>
${page.section ? navBar(page.section === true ? undefined : page.section) : ''}
<main id="main">
${page.body}
</main>
</body>
</html>
`;
}

/**
 * decisions §12.6: a merchant page reached over HTTPS (the balancer's X-Forwarded-Proto, believed
 * from PLATFORM_TRUST_PROXY only) tells the browser to come back over HTTPS alone for a year, so a
 * later `http://` link or a typed host never sends the session cookie's page over plain HTTP. Not
 * sent on plain HTTP, where a browser ignores it (RFC 6797) and a development server has no TLS.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The header above for a request that came over HTTPS, none otherwise. */
export function transportHeaders(request: FastifyRequest): Record<string, string> {
  return request.protocol === 'https' ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {};
}

export interface SendOptions {
  /** Origins a form on the page may lead to after posting (CSP form-action follows redirects). */
  formTargets?: readonly string[];
  /** Scripts the page loads, by path (each served by the API itself). */
  scripts?: boolean;
  headers?: Record<string, string>;
  /** The request was HTTPS: Strict-Transport-Security is added (transportHeaders). */
  https?: boolean;
}

/**
 * Security headers of every merchant page: a strict CSP (nothing but the API's own style sheet and
 * scripts), no framing (X-Frame-Options DENY and frame-ancestors 'none'), no sniffing, never cached.
 * Referrer-Policy same-origin: consent URLs never leak to another site, while the page's own form
 * posts keep their real Origin header (with no-referrer, Chromium sends `Origin: null`).
 */
export function pageHeaders(options: SendOptions = {}): Record<string, string> {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const csp = [
    "default-src 'none'",
    "style-src 'self'",
    `script-src ${options.scripts ? "'self'" : "'none'"}`,
    "img-src 'self'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    ...(options.https ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
    ...options.headers,
  };
}

/** After a successful post: back to a page with a 303 (never cached). */
export function seeOther(reply: FastifyReply, location: string): void {
  void reply
    .code(303)
    .headers({ location, 'cache-control': 'no-store', ...transportHeaders(reply.request) })
    .send();
}

export function sendPage(reply: FastifyReply, status: number, page: Html, options: SendOptions = {}): FastifyReply {
  return reply
    .code(status)
    .headers(pageHeaders({ https: reply.request.protocol === 'https', ...options }))
    .send(page.text);
}

/**
 * A time as the API renders it (`2026-11-22T12:00:00+08:00`, the store's zone), shown with spaces
 * so that it wraps between date, time and offset on a phone; the exact text stays in `datetime`.
 */
export function when(iso: string): Html {
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/(Z|[+-]\d\d:\d\d)$/, ' $1')}</time>`;
}

/**
 * A time an app sent and the API echoes as sent (resource feedback's `feedback_generated_at`): shown
 * in the store's zone when it reads as an instant, else as the text it is. A stored value (one
 * accepted by an older, laxer version too) never breaks a page (issue 14, finding 4).
 */
export function shownTime(text: string, timeZone: string): Html | string {
  const parsed = parseIsoInstant(text);
  return parsed.ok ? when(formatInZone(parsed.value, timeZone)) : text;
}

function navBar(current: Section | undefined): Html {
  return html`<nav class="nav" aria-label="Merchant admin">${SECTIONS.map(
    (s) => html`<a href="${s.href}"${s.section === current ? html` aria-current="page"` : ''}>${s.label}</a>`,
  )}</nav>`;
}

/** A signed-in merchant's page: the layout with the navigation bar and the sign-out button. */
export function adminPage(
  ctx: { store: { name: string }; session: { formToken: string } },
  page: { title: string; section: Section | true; body: Html },
): Html {
  return layout({ ...page, storeName: ctx.store.name, signOut: { formToken: ctx.session.formToken } });
}

/** The hidden field every merchant form carries: the session's CSRF token (merchant-sessions.service.ts checkForm). */
export function formToken(ctx: { session: { formToken: string } }): Html {
  return html`<input type="hidden" name="form_token" value="${ctx.session.formToken}">`;
}

/** A plain page with a heading and a few paragraphs: errors, notices. */
export function noticePage(title: string, paragraphs: (string | Html)[], storeName?: string): Html {
  return layout({
    title,
    storeName,
    body: html`<section class="card"><h1>${title}</h1>${paragraphs.map((p) => html`<p>${p}</p>`)}</section>`,
  });
}

/** decisions §10: how long a sign-in link lasts, and a session once opened (merchant-sessions.service.ts). */
export const SIGN_IN_WORDS = { link: '10 minutes', session: '8 hours' } as const;

/** How a merchant gets a sign-in link: from the platform team, or on a development machine from `./dev.sh link`. */
export function signInHelp(handle: string, heading = 'How to sign in'): Html {
  return html`<h2>${heading}</h2>
<p>Open a one-time sign-in link for the store <code>${handle}</code> in this browser. A link works once, within ${SIGN_IN_WORDS.link}; the session it opens lasts ${SIGN_IN_WORDS.session}.</p>
<ul>
<li>On a development machine, run <code>./dev.sh link ${handle}</code> in the repository while the API runs: it prints a fresh link.</li>
<li>Otherwise the platform team makes one with <code>POST /platform/v1/stores/${handle}/admin_sessions</code>.</li>
</ul>`;
}

/**
 * What a signed-out visitor of a merchant page sees (401): whether a session ended or none was
 * open, how to get a sign-in link, and a way back to the page they wanted once signed in.
 */
export function signInNeededPage(store: { name: string; handle: string }, returnPath: string, ended = false): Html {
  const title = ended ? 'Your session has ended' : 'Sign in to continue';
  return layout({
    title,
    storeName: store.name,
    body: html`<section class="card">
<h1>${title}</h1>
<p>${
      ended
        ? html`You were signed in to the merchant admin of <strong>${store.name}</strong>, and that session has ended (a session lasts ${SIGN_IN_WORDS.session}).`
        : html`This page is for the merchant of <strong>${store.name}</strong>, and you are not signed in.`
    }</p>
${signInHelp(store.handle, ended ? 'Sign in to continue' : 'How to sign in')}
<div class="actions"><a class="button primary" href="${returnPath}">I have signed in: continue</a></div>
</section>`,
  });
}
