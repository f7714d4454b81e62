import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import {
  DomainError,
  formatInZone,
  graceExpiry,
  hashToken,
  IssuesError,
  joinIssues,
  parseScopeList,
  tokenExpiresAt,
  type AppKind,
  checkRedirectUrl,
} from '@platform/domain';
import { randomBytes } from 'node:crypto';
import { ClockService } from '../clock/clock.service';
import { newSecret } from '../tokens/new-secret';
import { InjectDb } from '../db/db.module';
import { removeInstallation } from './uninstall';
import { OAuthGrantsService } from '../oauth/oauth-grants.service';
import { StoresService } from '../stores/stores.service';

/** decisions §5.1: opaque, URL-safe, 32 random bytes; only the SHA-256 is stored. */

export interface AppCreate {
  name: string;
  kind: AppKind;
  scopes: string[];
  redirect_urls?: string[];
  store_handle?: string | null;
}

interface AppRecord {
  id: bigint;
  name: string;
  kind: string;
  appKey: string;
  appSecret: string;
  scopes: string;
  redirectUrls: string;
  storeId: bigint | null;
  createdAt: Date;
  updatedAt: Date;
}

@Injectable()
export class AppsService {
  constructor(
    @InjectDb() private readonly db: Db,
    private readonly clock: ClockService,
    private readonly stores: StoresService,
    private readonly grants: OAuthGrantsService,
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
    if (issues.length > 0 || !scopes.ok) throw new IssuesError(issues.map(({ field, message }) => ({ field, message: joinIssues([{ field, message }]) })));
    // A custom app may name its one store up front; otherwise its first approval binds it (docs/decisions.md).
    const store = input.kind !== 'public' && input.store_handle ? await this.stores.get(input.store_handle) : undefined;
    const privateStore = input.kind === 'private' ? store : undefined;
    const now = this.clock.now();
    const scopeText = scopes.value.join(',');
    const token = fixedToken ?? newSecret();
    const expiresAt = tokenExpiresAt(input.kind, now);
    const app = await this.db.prisma.$transaction(async (tx) => {
      const app = await tx.app.create({
        data: {
          name: input.name,
          kind: input.kind,
          appKey: randomBytes(16).toString('hex'),
          appSecret: newSecret(),
          scopes: scopeText,
          redirectUrls: JSON.stringify(redirectUrls),
          storeId: store?.id ?? null,
          createdAt: now,
          updatedAt: now,
        },
      });
      if (privateStore) {
        const installation = await tx.installation.create({
          data: { storeId: privateStore.id, appId: app.id, scopes: scopeText, createdAt: now, updatedAt: now },
        });
        await tx.accessToken.create({
          data: { installationId: installation.id, tokenHash: hashToken(token), expiresAt, createdAt: now },
        });
      }
      return app;
    });
    const body = { app: this.toOperator(app, store?.handle ?? null, store?.ianaTimezone ?? 'UTC') };
    return privateStore ? { ...body, access_token: token, expires_at: formatInZone(expiresAt, privateStore.ianaTimezone) } : body;
  }

  /** decisions §5.4: a merchant refresh; the previous token stays valid 5 more minutes. */
  async refreshPrivateToken(handle: string, appId: bigint) {
    const { store, installation, app } = await this.installation(handle, appId);
    if (app.kind !== 'private') {
      // decisions §5.2-§5.3: custom and public apps refresh their own tokens through OAuth.
      throw new DomainError('VALIDATION_FAILED', `app: is a ${app.kind} app; only a private app's token is refreshed by the merchant`);
    }
    const now = this.clock.now();
    const token = newSecret();
    const expiresAt = tokenExpiresAt('private', now);
    await this.db.prisma.$transaction(async (tx) => {
      const current = await tx.accessToken.findMany({ where: { installationId: installation.id, supersededAt: null } });
      for (const old of current) {
        await tx.accessToken.update({
          where: { id: old.id },
          data: { supersededAt: now, expiresAt: graceExpiry(now, old.expiresAt) },
        });
      }
      await tx.accessToken.create({ data: { installationId: installation.id, tokenHash: hashToken(token), expiresAt, createdAt: now } });
    });
    return { access_token: token, expires_at: formatInZone(expiresAt, store.ianaTimezone) };
  }

  /** Uninstall (custom/public) or delete (private): every token of the app on that store dies at once. */
  async remove(handle: string, appId: bigint): Promise<void> {
    const { installation, app } = await this.installation(handle, appId);
    await this.db.prisma.$transaction(async (tx) => {
      await removeInstallation(tx, installation, this.clock.now(), 'app uninstalled');
      if (app.kind === 'private') await tx.app.delete({ where: { id: app.id } });
    });
  }

  /**
   * The merchant's approval without the browser (decisions §10): the same code the consent page
   * gives (10 minutes, single use, bound to app, store and scopes). A custom app already bound to
   * another store is refused with 422 (docs/decisions.md).
   */
  async install(handle: string, appId: bigint, requested: string[]) {
    const store = await this.stores.get(handle);
    const app = await this.db.prisma.app.findUnique({ where: { id: appId } });
    if (!app || app.kind === 'private') throw new DomainError('NOT_FOUND', 'App not found');
    return this.grants.issueCode(store, app, requested, 'scopes');
  }

  private async installation(handle: string, appId: bigint) {
    const store = await this.stores.get(handle);
    const installation = await this.db.prisma.installation.findUnique({
      where: { storeId_appId: { storeId: store.id, appId } },
      include: { app: true },
    });
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
