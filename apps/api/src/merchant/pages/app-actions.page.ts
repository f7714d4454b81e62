import type { InstalledApp } from '../merchant.read-model';
import type { MerchantContext } from '../merchant-session.guard';
import type { Html } from '../merchant-page';
import { confirmPage } from './confirm.page';

/** Uninstall: the cancel-authorization effect, in words (decisions §5.3). */
export function confirmUninstallPage(ctx: MerchantContext, app: InstalledApp): Html {
  return confirmPage(ctx, {
    title: `Uninstall ${app.name}?`,
    section: 'apps',
    paragraphs: [
      'Its access tokens stop working at once, its webhook subscriptions on this store are removed, and deliveries not yet sent end as failed.',
      'To use it again, install it again from the app.',
    ],
    action: `/admin/apps/${app.id.toString()}/uninstall`,
    button: 'Uninstall app',
    back: '/admin/apps',
  });
}

/** Refresh a private token: the old one keeps 5 minutes (decisions §5.4). */
export function confirmRefreshPage(ctx: MerchantContext, app: InstalledApp): Html {
  return confirmPage(ctx, {
    title: `Refresh the token of ${app.name}?`,
    section: 'apps',
    paragraphs: [
      'A new token is made and shown once. The current token keeps working for 5 more minutes, then stops: put the new one in place before then.',
    ],
    action: `/admin/private_apps/${app.id.toString()}/refresh`,
    button: 'Refresh token',
    back: '/admin/apps#private-apps',
  });
}

/** Delete a private app: every token invalid at once (decisions §5.4). */
export function confirmDeletePage(ctx: MerchantContext, app: InstalledApp): Html {
  return confirmPage(ctx, {
    title: `Delete ${app.name}?`,
    section: 'apps',
    paragraphs: ['Every token of this app stops working at once, and the app is gone: this cannot be undone.'],
    action: `/admin/private_apps/${app.id.toString()}/delete`,
    button: 'Delete app',
    back: '/admin/apps#private-apps',
  });
}
