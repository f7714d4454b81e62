import { Injectable } from '@nestjs/common';
import { DomainError, EXPIRY_REMINDER_DAYS, formatInZone } from '@platform/domain';
import { AppsService } from '../apps/apps.service';
import { ClockService } from '../core/clock.service';
import { DeliveriesService } from '../webhooks/deliveries.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { MerchantReadModel, type InstalledApp, type TroubledSubscription } from './merchant.read-model';
import type { MerchantContext } from './merchant-session.guard';
import type { DeliveriesView } from './pages/deliveries.page';
import type { ShownToken } from './pages/apps.page';

/** The newest deliveries the deliveries page shows (docs/webhooks.md); older ones are in the operator's view. */
export const RECENT_DELIVERIES = 50;
/** Subscriptions a page shows; an app has a handful (one per topic and address). */
const SUBSCRIPTIONS_SHOWN = 200;

/** Which apps an action is for: uninstall is for custom and public apps, refresh and delete for private ones. */
export type AppKindWanted = 'installed' | 'private';

/**
 * The merchant's apps (issue 18, 4): what is installed, the private apps the merchant makes, and the
 * actions on them, each through the operator API's own service (AppsService: create, refresh with
 * 5 minutes of grace, uninstall with the cancel-authorization effect, delete).
 */
@Injectable()
export class MerchantAppsService {
  constructor(
    private readonly read: MerchantReadModel,
    private readonly apps: AppsService,
    private readonly clock: ClockService,
    private readonly subscriptions: WebhooksService,
    private readonly deliveries: DeliveriesService,
  ) {}

  now(): Date {
    return this.clock.now();
  }

  installedApps(ctx: MerchantContext): Promise<InstalledApp[]> {
    return this.read.installedApps(ctx.store.id);
  }

  async overview(ctx: MerchantContext): Promise<{ apps: InstalledApp[]; troubled: TroubledSubscription[] }> {
    const [apps, troubled] = await Promise.all([
      this.read.installedApps(ctx.store.id),
      this.read.troubledSubscriptions(ctx.store.id, SUBSCRIPTIONS_SHOWN),
    ]);
    return { apps, troubled };
  }

  /** The home page's counts that concern apps: subscriptions disabled or failing, private tokens expiring within 30 days (decisions §5.4). */
  async attention(ctx: MerchantContext): Promise<{ troubledSubscriptions: number; expiringTokens: number }> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + EXPIRY_REMINDER_DAYS * 86_400_000);
    const [troubled, expiringTokens] = await Promise.all([
      this.read.troubledSubscriptions(ctx.store.id, SUBSCRIPTIONS_SHOWN),
      this.read.privateTokensExpiring(ctx.store.id, now, until),
    ]);
    return { troubledSubscriptions: troubled.length, expiringTokens };
  }

  /** An app installed on this store, of the kind the action is for; any other id is a 404 page. */
  async installed(ctx: MerchantContext, appId: bigint, wanted?: AppKindWanted): Promise<InstalledApp> {
    const app = await this.read.installedApp(ctx.store.id, appId);
    const fits = wanted === undefined || (wanted === 'private') === (app?.kind === 'private');
    if (!app || !fits) throw new DomainError('NOT_FOUND', wanted === 'private' ? 'Private app not found' : 'App not found');
    return app;
  }

  /** Create private app: the operator API's create (decisions §10), for this store; the token is shown once. */
  async createPrivate(ctx: MerchantContext, name: string, scopes: string[]): Promise<ShownToken> {
    const created = await this.apps.create({ name, kind: 'private', scopes, store_handle: ctx.store.handle });
    if (!('access_token' in created)) throw new Error('a private app was created without its token');
    return { appName: created.app.name, token: created.access_token, expiresAt: created.expires_at };
  }

  /** decisions §5.4: a new token; the previous one keeps working 5 more minutes (read back as stored). */
  async refreshPrivate(ctx: MerchantContext, appId: bigint): Promise<ShownToken> {
    const app = await this.installed(ctx, appId, 'private');
    const fresh = await this.apps.refreshPrivateToken(ctx.store.handle, appId);
    const after = await this.read.installedApp(ctx.store.id, appId);
    const previous = after?.tokens.find((t) => t.supersededAt !== null && t.expiresAt.getTime() > this.clock.now().getTime());
    return {
      appName: app.name,
      token: fresh.access_token,
      expiresAt: fresh.expires_at,
      previousUntil: previous ? formatInZone(previous.expiresAt, ctx.store.ianaTimezone) : undefined,
    };
  }

  /** Uninstall (custom, public: the cancel-authorization effect) or delete (private): every token invalid at once. */
  async remove(ctx: MerchantContext, appId: bigint, wanted: AppKindWanted): Promise<void> {
    await this.installed(ctx, appId, wanted);
    await this.apps.remove(ctx.store.handle, appId);
  }

  async deliveriesOf(ctx: MerchantContext, appId: bigint, requeuedId: bigint | undefined): Promise<DeliveriesView> {
    const app = await this.installed(ctx, appId);
    const [subscriptions, deliveries] = await Promise.all([
      this.subscriptions.listForApp(ctx.store.id, app.id, SUBSCRIPTIONS_SHOWN),
      this.deliveries.recentForApp(ctx.store, app.id, RECENT_DELIVERIES),
    ]);
    // The notice after a redelivery, only about a delivery of this page that is pending.
    const requeued = deliveries.find((d) => BigInt(d.id) === requeuedId && d.status === 'pending') ? requeuedId : undefined;
    return { app, subscriptions, deliveries, shown: RECENT_DELIVERIES, requeued };
  }

  /**
   * The Redeliver button: the operator's redelivery, limited to this app's deliveries (another app's
   * is the same 404 as an unknown id). A delivery that cannot be redelivered is the reason, not an error.
   */
  async redeliver(ctx: MerchantContext, appId: bigint, id: bigint): Promise<{ app: InstalledApp; refused?: string }> {
    const app = await this.installed(ctx, appId);
    if ((await this.deliveries.appOf(ctx.store.id, id)) !== app.id) throw new DomainError('NOT_FOUND', 'Delivery not found');
    try {
      await this.deliveries.redeliver(ctx.store.handle, id.toString());
      return { app };
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'VALIDATION_FAILED') throw error;
      return { app, refused: error.message.replace(/^[a-z_]+: /, '') };
    }
  }
}
