import { formatInZone } from '@platform/domain';
import type { InstalledApp } from '../merchant.read-model';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, html, when, type Html } from '../merchant-page';
import { APP_SECTIONS, KIND_WORDS, scopesOf, tokensOf } from './apps.page';
import { table } from './parts';

export interface Attention {
  invalidValues: number;
  productsRequiringAction: number;
  troubledSubscriptions: number;
  expiringTokens: number;
}

/** The counts on the home page, each linking to its list (issue 18, 0). */
const ITEMS: readonly { key: keyof Attention; href: string; one: string; many: string }[] = [
  {
    key: 'invalidValues',
    href: '/admin/metafields?valid=false',
    one: 'metafield value marked invalid',
    many: 'metafield values marked invalid',
  },
  {
    key: 'productsRequiringAction',
    href: '/admin/products?feedback=require_actions',
    one: 'product an app says needs action',
    many: 'products an app says need action',
  },
  {
    key: 'troubledSubscriptions',
    href: '/admin/apps#webhook-problems',
    one: 'webhook subscription disabled or failing',
    many: 'webhook subscriptions disabled or failing',
  },
  {
    key: 'expiringTokens',
    href: '/admin/apps#private-apps',
    one: 'private app token expiring within 30 days',
    many: 'private app tokens expiring within 30 days',
  },
];

export function homePage(ctx: MerchantContext, attention: Attention, apps: InstalledApp[], now: Date): Html {
  const zone = ctx.store.ianaTimezone;
  const waiting = ITEMS.filter((item) => attention[item.key] > 0);
  const installed = apps.filter((a) => a.kind !== 'private');
  const privateApps = apps.filter((a) => a.kind === 'private');
  const appLink = (app: InstalledApp) => html`<a href="/admin/apps/${app.id.toString()}/deliveries">${app.name}</a>`;
  return adminPage(ctx, {
    title: 'Home',
    section: 'home',
    body: html`<section class="card"><h1>Needs your attention</h1>
${
  waiting.length === 0
    ? html`<p>Nothing needs your attention.</p>`
    : html`<ul class="attention">${waiting.map(
        (item) =>
          html`<li><a href="${item.href}"><span class="count">${attention[item.key]}</span> ${attention[item.key] === 1 ? item.one : item.many}</a></li>`,
      )}</ul>`
}</section>
<section class="card"><h2>${APP_SECTIONS.installed.heading}</h2>${
      installed.length === 0
        ? html`<p class="muted">${APP_SECTIONS.installed.none}</p>`
        : table(
            APP_SECTIONS.installed.heading,
            ['App', 'Kind', 'Scopes', 'Installed'],
            installed.map((app) => [
              appLink(app),
              KIND_WORDS[app.kind] ?? app.kind,
              scopesOf(app),
              when(formatInZone(app.createdAt, zone)),
            ]),
          )
    }</section>
<section class="card"><h2>${APP_SECTIONS.private.heading}</h2>${
      privateApps.length === 0
        ? html`<p class="muted">${APP_SECTIONS.private.none}</p>`
        : table(
            APP_SECTIONS.private.heading,
            ['App', 'Scopes', 'Token expires'],
            privateApps.map((app) => {
              const { current } = tokensOf(app, now);
              return [appLink(app), scopesOf(app), current ? when(formatInZone(current.expiresAt, zone)) : 'No current token'];
            }),
          )
    }
<div class="actions"><a class="button" href="/admin/apps">Manage apps</a></div></section>`,
  });
}
