import { DISABLE_AFTER_FAILED_DELIVERIES, formatInZone, isScope, minimalScopeString, SCOPES, SCOPE_WORDS } from '@platform/domain';
import type { InstalledApp, TokenInfo, TroubledSubscription } from '../merchant.read-model';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, when, type Html } from '../merchant-page';
import { fieldErrors, formErrors, notice, table, textField, type FieldErrors } from './parts';

/** Why a subscription was disabled (decisions §11.5), in words. */
export const DISABLED_WORDS: Record<string, string> = {
  gone: 'the address answered 410 Gone',
  failures: `${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed`,
  api: 'the app disabled it',
};

/**
 * The app sections and their words, the same on the home page and the Apps page (issue 47): apps
 * installed from outside (custom and public), and the private apps the merchant develops here.
 */
export const APP_SECTIONS = {
  installed: { heading: 'Installed apps', none: 'No custom or public app is installed on this store.' },
  private: {
    heading: 'Private apps',
    none: 'You have not created a private app yet.',
    about: 'Apps you develop for this store alone. Their token works for 3 years; an e-mail reminder is sent 30 days before it expires.',
  },
} as const;

/** An app's kind in words. */
export const KIND_WORDS: Record<string, string> = { custom: 'Custom app', public: 'Public app', private: 'Private app' };

/** The notices after an action that led back to the apps page (`?done=`). */
const DONE_WORDS: Record<string, string> = {
  uninstalled: 'The app was uninstalled: its tokens stopped working at once and its webhook subscriptions were removed.',
  deleted: 'The private app was deleted: its tokens stopped working at once.',
};

/** An app's scopes in words, each with its API name small beside it. */
export function scopesOf(app: InstalledApp): Html {
  const scopes = minimalScopeString(app.scopes.split(',')).split(',');
  return html`<ul class="plain scope-list">${scopes.map(
    (s) => html`<li>${isScope(s) ? SCOPE_WORDS[s] : s} <code class="api-name">${s}</code></li>`,
  )}</ul>`;
}

function subscriptionState(s: TroubledSubscription): Html {
  if (s.status === 'disabled')
    return html`Disabled: ${s.disabledReason ? (DISABLED_WORDS[s.disabledReason] ?? s.disabledReason) : 'no reason recorded'}`;
  return html`Failing: ${s.failureStreak} ${s.failureStreak === 1 ? 'delivery' : 'deliveries'} in a row failed`;
}

/** The current token of a private app (not replaced by a refresh), and the replaced ones still working. */
export function tokensOf(app: InstalledApp, now: Date): { current: TokenInfo | undefined; grace: TokenInfo[] } {
  return {
    current: app.tokens.find((t) => t.supersededAt === null),
    grace: app.tokens.filter((t) => t.supersededAt !== null && t.expiresAt.getTime() > now.getTime()),
  };
}

function reminderWords(token: TokenInfo | undefined, zone: string): Html | string {
  if (!token) return 'No current token';
  return token.reminderSentAt ? html`Sent ${when(formatInZone(token.reminderSentAt, zone))}` : 'Not sent yet (sent 30 days before expiry)';
}

export function appsPage(
  ctx: MerchantContext,
  apps: InstalledApp[],
  troubled: TroubledSubscription[],
  now: Date,
  done: string | undefined,
): Html {
  const zone = ctx.store.ianaTimezone;
  const installed = apps.filter((a) => a.kind !== 'private');
  const privateApps = apps.filter((a) => a.kind === 'private');
  const id = (app: InstalledApp) => app.id.toString();
  return adminPage(ctx, {
    title: 'Apps',
    section: 'apps',
    body: html`${done && DONE_WORDS[done] ? notice(DONE_WORDS[done]) : ''}<h1 class="page-title">Apps</h1>
<section class="card" id="installed-apps"><h2>${APP_SECTIONS.installed.heading}</h2>
${
  installed.length === 0
    ? html`<p class="muted">${APP_SECTIONS.installed.none}</p>`
    : table(
        APP_SECTIONS.installed.heading,
        ['App', 'Kind', 'Scopes', 'Installed', 'Actions'],
        installed.map((app) => [
          app.name,
          KIND_WORDS[app.kind] ?? app.kind,
          scopesOf(app),
          when(formatInZone(app.createdAt, zone)),
          html`<span class="row-actions"><a href="/admin/apps/${id(app)}/deliveries">Deliveries<span class="visually-hidden"> of ${app.name}</span></a> <a href="/admin/apps/${id(app)}/uninstall">Uninstall<span class="visually-hidden"> ${app.name}</span></a></span>`,
        ]),
      )
}</section>
${
  troubled.length === 0
    ? ''
    : html`<section class="card" id="webhook-problems"><h2>Webhook subscriptions needing attention</h2>
${table(
  'Webhook subscriptions disabled or failing',
  ['App', 'Topic', 'Address', 'State'],
  troubled.map((s) => [
    html`<a href="/admin/apps/${s.appId.toString()}/deliveries">${s.appName}</a>`,
    s.topic,
    html`<code>${s.address}</code>`,
    subscriptionState(s),
  ]),
)}</section>`
}
<section class="card" id="private-apps"><h2>${APP_SECTIONS.private.heading}</h2>
<p class="muted">${APP_SECTIONS.private.about}</p>
<div class="actions"><a class="button primary" href="/admin/private_apps/new">Create private app</a></div>
${
  privateApps.length === 0
    ? html`<p class="muted">${APP_SECTIONS.private.none}</p>`
    : table(
        APP_SECTIONS.private.heading,
        ['App', 'Scopes', 'Token expires', 'Expiry reminder', 'Actions'],
        privateApps.map((app) => {
          const { current, grace } = tokensOf(app, now);
          return [
            app.name,
            scopesOf(app),
            html`${current ? when(formatInZone(current.expiresAt, zone)) : 'No current token'}${grace.map(
              (t) => html`<br><span class="muted">Previous token works until ${when(formatInZone(t.expiresAt, zone))}</span>`,
            )}`,
            reminderWords(current, zone),
            html`<span class="row-actions"><a href="/admin/apps/${id(app)}/deliveries">Deliveries<span class="visually-hidden"> of ${app.name}</span></a> <a href="/admin/private_apps/${id(app)}/refresh">Refresh token<span class="visually-hidden"> of ${app.name}</span></a> <a href="/admin/private_apps/${id(app)}/delete">Delete app<span class="visually-hidden"> ${app.name}</span></a></span>`,
          ];
        }),
      )
}</section>`,
  });
}

export interface PrivateAppDraft {
  name: string;
  scopes: readonly string[];
}

/** Create private app (issue 18, 4): a name and its scopes, each in words. */
export function newPrivateAppPage(ctx: MerchantContext, draft: PrivateAppDraft, errors: FieldErrors, status = 'Create private app'): Html {
  return adminPage(ctx, {
    title: status,
    section: 'apps',
    body: html`${formErrors(errors, 'The app was not created')}<section class="card"><h1>Create private app</h1>
<form method="post" action="/admin/private_apps" novalidate>${formToken(ctx)}
${textField('App name', 'name', draft.name, errors, { required: true })}
<fieldset class="field"${errors.has('scopes') ? html` aria-describedby="scopes-error"` : ''}><legend>Scopes</legend>
${SCOPES.map(
  (scope) =>
    html`<label class="check"><input type="checkbox" name="scope.${scope}" value="on"${draft.scopes.includes(scope) ? html` checked` : ''}><span>${SCOPE_WORDS[scope]} <code class="api-name">${scope}</code></span></label>`,
)}
${fieldErrors('scopes', errors)}</fieldset>
<div class="actions"><button type="submit" class="primary">Create app</button><a class="button" href="/admin/apps#private-apps">Cancel</a></div>
</form></section>`,
  });
}

export interface ShownToken {
  appName: string;
  token: string;
  /** ISO 8601 in the store's zone. */
  expiresAt: string;
  /** After a refresh: until when the previous token still works (ISO 8601, store's zone). */
  previousUntil?: string | undefined;
}

/**
 * A token shown once (issue 18, 4): after create or refresh, never again. The Copy button is the
 * page's only script (/admin/assets/admin.js); without scripts the field is selectable text.
 */
export function tokenPage(ctx: MerchantContext, shown: ShownToken, heading: string): Html {
  return adminPage(ctx, {
    title: heading,
    section: 'apps',
    body: html`<section class="card notice"><h1>${heading}</h1>
<p>The access token of <strong>${shown.appName}</strong> is shown <strong>only this once</strong>: copy it now and keep it safe.</p>
<div class="field"><label for="token-value">Access token</label>
<input id="token-value" class="token" type="text" value="${shown.token}" readonly>
<button type="button" class="copy" data-copy="token-value" hidden>Copy token</button> <span class="copy-status" role="status" aria-live="polite"></span></div>
<dl><dt>Expires</dt><dd>${when(shown.expiresAt)}</dd>
${shown.previousUntil ? html`<dt>Previous token</dt><dd>keeps working until ${when(shown.previousUntil)} (5 minutes), then stops</dd>` : ''}</dl>
<div class="actions"><a class="button primary" href="/admin/apps#private-apps">Back to the apps</a></div>
</section>
<script src="/admin/assets/admin.js"></script>`,
  });
}
