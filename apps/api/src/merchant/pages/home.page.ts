import { formatInZone, minimalScopeString } from '@platform/domain';
import type { InstalledApp } from '../merchant-read.repository';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, html, when, type Html } from '../merchant-page';
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

export function homePage(ctx: MerchantContext, attention: Attention, apps: InstalledApp[]): Html {
  const zone = ctx.store.ianaTimezone;
  const waiting = ITEMS.filter((item) => attention[item.key] > 0);
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
<section class="card"><h2>Installed apps</h2>${
      apps.length === 0
        ? html`<p class="muted">No app is installed on this store yet.</p>`
        : table(
            'Installed apps',
            ['App', 'Kind', 'Scopes', 'Since'],
            apps.map((app) => [
              html`<a href="/admin/apps/${app.id.toString()}/deliveries">${app.name}</a>`,
              app.kind,
              html`<span class="scopes">${minimalScopeString(app.scopes.split(',')).split(',').join(', ')}</span>`,
              when(formatInZone(app.createdAt, zone)),
            ]),
          )
    }</section>`,
  });
}
