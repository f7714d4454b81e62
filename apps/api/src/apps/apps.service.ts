import { Injectable } from '@nestjs/common';
import type { App, TransactionClient } from '@platform/db';
import { checkRedirectUrl, DomainError, formatInZone, IssuesError, joinIssues, parseScopeList, type AppKind } from '@platform/domain';
import { randomBytes } from 'node:crypto';
import { ClockService } from '../core/clock.service';
import { Transactions } from '../core/transactions';
import { StoresService } from '../stores/stores.service';
import { newSecret } from '../tokens/new-secret';
import { TokensService } from '../tokens/tokens.service';
import { AppRemovalSteps } from './app-removal';
import { AppsRepository, type InstallationWithApp } from './apps.repository';

export interface AppCreate {
  name: string;
  kind: AppKind;
  scopes: string[];
  redirect_urls?: string[];
  store_handle?: string | null;
}

type AppRecord = Pick<
  App,
  'id' | 'name' | 'kind' | 'appKey' | 'appSecret' | 'scopes' | 'redirectUrls' | 'storeId' | 'createdAt' | 'updatedAt'
>;

/** Apps, their installations on stores, and what leaves with an app (decisions §5, §10). */
@Injectable()
export class AppsService {
  constructor(
    private readonly repository: AppsRepository,
    private readonly transactions: Transactions,
    private readonly tokens: TokensService,
    private readonly clock: ClockService,
    private readonly stores: StoresService,
    private readonly removalSteps: AppRemovalSteps,
  ) {}

  async create(input: AppCreate, fixedToken?: string) {
    const issues: { field: string; message: string }[] = [];
    if (!input.name.trim()) issues.push({ field: 'name', message: "can't be blank" });
    const scopes = parseScopeList(input.scopes);
    if (!scopes.ok) issues.push({ field: 'scopes', message: scopes.message });
    const redirectUrls = input.redirect_urls ?? [];
    redirectUrls.forEach((url, i) => {
      const check = checkRedirectUrl(url);
      if (!check.ok) issues.push({ field: `redirect_urls[${i}]`, message: check.message });
    });
    if (input.kind === 'private' && !input.store_handle) {
      issues.push({ field: 'store_handle', message: "can't be blank for a private app" });
    }
    if (input.kind === 'public' && input.store_handle) {
      issues.push({ field: 'store_handle', message: 'must be absent for a public app, which installs on many stores' });
    }
    // The problems stay listed (IssuesError) so the merchant admin can show each beside its field.
    if (issues.length > 0 || !scopes.ok)
      throw new IssuesError(issues.map(({ field, message }) => ({ field, message: joinIssues([{ field, message }]) })));
    // A custom app may name its one store up front; otherwise its first approval binds it (docs/decisions.md).
    const store = input.kind !== 'public' && input.store_handle ? await this.stores.get(input.store_handle) : undefined;
    const privateStore = input.kind === 'private' ? store : undefined;
    const now = this.clock.now();
    const scopeText = scopes.value.join(',');
    const { app, issued } = await this.transactions.run(async (tx) => {
      const app = await this.repository.createApp(tx, {
        name: input.name,
        kind: input.kind,
        appKey: randomBytes(16).toString('hex'),
        appSecret: newSecret(),
        scopes: scopeText,
        redirectUrls: JSON.stringify(redirectUrls),
        storeId: store?.id ?? null,
        now,
      });
      if (!privateStore) return { app, issued: undefined };
      // decisions §5.4: a private app is installed on its store at once, with its 3-year token.
      const installation = await this.repository.createInstallation(tx, privateStore.id, app.id, scopeText, now);
      return { app, issued: await this.tokens.issue(tx, installation.id, 'private', now, fixedToken) };
    });
    const body = { app: this.toOperator(app, store?.handle ?? null, store?.ianaTimezone ?? 'UTC') };
    return privateStore && issued
      ? { ...body, access_token: issued.token, expires_at: formatInZone(issued.expiresAt, privateStore.ianaTimezone) }
      : body;
  }

  /** decisions §5.4: a merchant refresh; the previous token stays valid 5 more minutes. */
  async refreshPrivateToken(handle: string, appId: bigint) {
    const { store, installation, app } = await this.installation(handle, appId);
    if (app.kind !== 'private') {
      // decisions §5.2-§5.3: custom and public apps refresh their own tokens through OAuth.
      throw new DomainError('VALIDATION_FAILED', `app: is a ${app.kind} app; only a private app's token is refreshed by the merchant`);
    }
    const now = this.clock.now();
    const issued = await this.transactions.run(async (tx) => {
      if (!(await this.repository.lockInstallation(tx, installation.id)))
        throw new DomainError('NOT_FOUND', 'App not installed on this store');
      return this.tokens.replace(tx, installation.id, 'private', now);
    });
    return { access_token: issued.token, expires_at: formatInZone(issued.expiresAt, store.ianaTimezone) };
  }

  /** Uninstall (custom/public) or delete (private): every token of the app on that store dies at once. */
  async remove(handle: string, appId: bigint): Promise<void> {
    const { installation, app } = await this.installation(handle, appId);
    await this.transactions.run(async (tx) => {
      // Two removals at once: the one that finds the installation gone answers as a later one would.
      if (!(await this.removeInstallation(tx, installation, this.clock.now(), 'app uninstalled'))) {
        throw new DomainError('NOT_FOUND', 'App not installed on this store');
      }
      if (app.kind === 'private') await this.repository.deleteApp(tx, app.id);
    });
  }

  /**
   * decisions §5.3: the cancel-authorization call. What an uninstall removes goes (removeInstallation);
   * without an installation, only the unused grants that could install it again. False when the app
   * was not installed.
   */
  async cancel(storeId: bigint, appId: bigint): Promise<boolean> {
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      const installation = await this.repository.installation(storeId, appId, tx);
      if (!installation) {
        await this.removalSteps.run(tx, { storeId, appId, now, reason: 'app authorization cancelled' });
        return false;
      }
      return this.removeInstallation(tx, installation, now, 'app authorization cancelled');
    });
  }

  /** The installation an OAuth grant makes or updates, in the grant's transaction (decisions §5.2). */
  upsertInstallation(tx: TransactionClient, storeId: bigint, appId: bigint, scopes: string, now: Date): Promise<{ id: bigint }> {
    return this.repository.upsertInstallation(tx, storeId, appId, scopes, now);
  }

  /**
   * Locks the installation in the caller's transaction before its tokens change (a refresh): false
   * when it is gone (uninstalled or cancelled meanwhile). See AppsRepository.lockInstallation.
   */
  lockInstallation(tx: TransactionClient, installationId: bigint): Promise<boolean> {
    return this.repository.lockInstallation(tx, installationId);
  }

  /**
   * Locks the app's row in the caller's transaction, so writes that count what the app holds (its
   * webhook subscriptions, decisions §11.7) run one after the other.
   */
  lock(tx: TransactionClient, appId: bigint): Promise<void> {
    return this.repository.lockApp(tx, appId);
  }

  async installationOn(storeId: bigint, appId: bigint): Promise<InstallationWithApp | undefined> {
    return (await this.repository.installation(storeId, appId)) ?? undefined;
  }

  appByKey(appKey: string): Promise<App | null> {
    return this.repository.appByKey(appKey);
  }

  appById(id: bigint): Promise<App | null> {
    return this.repository.appById(id);
  }

  bindCustomApp(appId: bigint, storeId: bigint): Promise<boolean> {
    return this.repository.bindCustomApp(appId, storeId);
  }

  /**
   * What removing an app from a store takes away, in one transaction (decisions §5.3, §11): every
   * token of the installation (invalid at once), the installation, and what the other features
   * registered (AppRemovalSteps: subscriptions, pending deliveries, unused grants). The same whether
   * the operator or the merchant uninstalls or the app cancels its grant. False, with nothing more
   * done, when a removal at the same moment took the installation first.
   */
  private async removeInstallation(
    tx: TransactionClient,
    installation: { id: bigint; storeId: bigint; appId: bigint },
    now: Date,
    reason: string,
  ): Promise<boolean> {
    if (!(await this.repository.lockInstallation(tx, installation.id))) return false;
    await this.tokens.revokeAll(tx, installation.id);
    if (!(await this.repository.deleteInstallation(tx, installation.id))) return false;
    await this.removalSteps.run(tx, { storeId: installation.storeId, appId: installation.appId, now, reason });
    return true;
  }

  private async installation(handle: string, appId: bigint) {
    const store = await this.stores.get(handle);
    const installation = await this.repository.installation(store.id, appId);
    if (!installation) throw new DomainError('NOT_FOUND', 'App not installed on this store');
    return { store, installation, app: installation.app };
  }

  toOperator(app: AppRecord, storeHandle: string | null, tz: string) {
    return {
      id: app.id.toString(),
      name: app.name,
      kind: app.kind as AppKind,
      app_key: app.appKey,
      app_secret: app.appSecret,
      scopes: app.scopes ? app.scopes.split(',') : [],
      redirect_urls: JSON.parse(app.redirectUrls) as string[],
      store_handle: storeHandle,
      created_at: formatInZone(app.createdAt, tz),
      updated_at: formatInZone(app.updatedAt, tz),
    };
  }
}
