import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { SCOPE_WORDS } from '@platform/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MerchantPageFilter } from '../merchant/merchant-errors.filter';
import { html, layout, sendPage, signInNeededPage } from '../merchant/merchant-page';
import { MerchantSessionsService } from '../merchant/merchant-sessions.service';
import { OAuthGrantsService, type AuthorizeRequest } from './oauth-grants.service';

/** decisions §5.2: the consent page on the store's host, and the fragment page apps of this family link to. */
@Controller()
@UseFilters(MerchantPageFilter)
export class OAuthPagesController {
  constructor(
    private readonly sessions: MerchantSessionsService,
    private readonly grants: OAuthGrantsService,
  ) {}

  @Get('/admin/oauth/authorize')
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const store = await this.sessions.storeOfHost(request);
    const asked = await this.grants.checkAuthorize(store, request.query as Record<string, unknown>);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, request.url));
    const consentToken = await this.grants.openConsent(session, asked);
    // CSP form-action also governs where the form's redirect may lead: this app's callback only.
    return sendPage(reply, 200, consentPage(asked, consentToken, session.formToken), { formTargets: [asked.redirectOrigin] });
  }

  /** Approve or Decline: a signed-in merchant's own, unused form only (CSRF and replays refused). */
  @Post('/admin/oauth/authorize')
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, '/admin'));
    this.sessions.checkOrigin(request);
    const location = await this.grants.decide(request, session, store, request.body as Record<string, string> | undefined);
    void reply.code(303).headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'same-origin' }).send();
  }
}

function consentPage(asked: AuthorizeRequest, consentToken: string, sessionFormToken: string) {
  const { app, store, scopes } = asked;
  const destination = new URL(asked.redirectOrigin).host;
  return layout({
    title: `Install ${app.name}?`,
    storeName: store.name,
    signOut: { formToken: sessionFormToken },
    body: html`<section class="card">
<h1>Install ${app.name}?</h1>
<p><strong>${app.name}</strong> (${app.kind === 'custom' ? 'a custom app made for this store' : 'a public app'}) asks for access to <strong>${store.name}</strong>. If you approve, it will be able to:</p>
<ul class="scopes">${scopes.map((scope) => html`<li>${SCOPE_WORDS[scope]}<span class="name">${scope}</span></li>`)}</ul>
<p class="muted">Then you go back to ${destination}.</p>
<form method="post" action="/admin/oauth/authorize">
<input type="hidden" name="consent_token" value="${consentToken}">
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="decline">Decline</button>
</div>
</form>
</section>`,
  });
}

/**
 * `/admin/oauth-web/#/oauth/authorize?...` (decisions §5.2): the query is in the fragment, which only
 * the browser sees; the page's script reads it and continues to the consent page. Served at both
 * spellings of the path, so registered on Fastify directly (Nest drops a trailing slash).
 */
export function registerOAuthWebPage(fastify: FastifyInstance): void {
  const page = layout({
    title: 'Continuing to the app installation',
    body: html`<section class="card"><h1>Continuing to the app installation…</h1>
<p id="oauth-web-note" class="muted">If nothing happens, this browser runs no scripts: open the app's installation link again in a browser that does.</p>
</section>
<script src="/admin/assets/oauth-web.js"></script>`,
  });
  for (const url of ['/admin/oauth-web', '/admin/oauth-web/']) {
    fastify.get(url, (_request, reply) => sendPage(reply, 200, page, { scripts: true }));
  }
}
