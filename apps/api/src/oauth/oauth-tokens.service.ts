import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { App } from '@platform/db';
import {
  checkStoreStatus,
  checkTokenCallHeaders,
  DomainError,
  formatInZone,
  hashToken,
  resolveHost,
  signedCallExpiry,
  signedCallKey,
  verifyTokenRequest,
} from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppRemovalSteps } from '../apps/app-removal';
import { AppsService } from '../apps/apps.service';
import { Transactions } from '../core/transactions';
import { TokensService } from '../tokens/tokens.service';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { BodyGates } from '../http/body-gates';
import { StoresService, type StoreRecord } from '../stores/stores.service';
import { OAuthRepository } from './oauth.repository';
import { oauthErrorBody } from './oauth-envelope.filter';
import { OAUTH_TOKEN_PATH, rawBodyOf } from './oauth-http';

/**
 * The largest body a token call reads: create carries `{"code":"..."}` (a code is at most 200
 * characters), refresh and cancel nothing. Room for whitespace and a client's extra fields.
 */
export const TOKEN_CALL_MAX_BYTES = 4096;

export interface IssuedToken {
  accessToken: string;
  expireTime: string;
  scope: string;
}

/** The token calls of custom and public apps (decisions §5.2, §5.3): create, refresh, cancel. */
@Injectable()
export class OAuthTokensService implements OnModuleInit {
  constructor(
    private readonly repository: OAuthRepository,
    private readonly stores: StoresService,
    private readonly apps: AppsService,
    private readonly tokens: TokensService,
    private readonly transactions: Transactions,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
    @Inject(BodyGates) private readonly gates: BodyGates,
    private readonly removalSteps: AppRemovalSteps,
  ) {}

  /**
   * Before a byte of a token call's body is read (issue 14, finding 1): the signing headers are
   * there and well-formed, the timestamp is in the window, the appkey is a custom or public app's.
   * An anonymous caller is refused on its headers; a signed one sends at most 4 KB.
   */
  onModuleInit(): void {
    const gate = {
      maxBytes: TOKEN_CALL_MAX_BYTES,
      admit: async (request: FastifyRequest) => {
        await this.appOfHeaders(request);
      },
      refuse: (_request: FastifyRequest, reply: FastifyReply, error: unknown) => {
        const { status, body } = oauthErrorBody(error);
        return reply.code(status).send(body);
      },
    };
    for (const call of ['create', 'refresh', 'cancel']) this.gates.set('POST', `${OAUTH_TOKEN_PATH}${call}`, gate);
    // An app leaving a store takes its unused codes and consent forms with it (they would install it again).
    this.removalSteps.add((tx, { storeId, appId }) => this.repository.forgetUnusedGrants(tx, storeId, appId));
  }

  /**
   * The calling app, from `appkey`, `timestamp` and `sign` (decisions §5.2): the timestamp within 10
   * minutes of the service clock, the sign compared in constant time over the exact body bytes, and
   * the call not seen before: a signed call is accepted once, on any store and any replica (the
   * Host that names the store is not signed, so a repeat is refused wherever it is sent).
   */
  async caller(request: FastifyRequest): Promise<App> {
    const app = await this.appOfHeaders(request);
    const now = this.clock.now();
    const timestamp = header(request, 'timestamp')!;
    const sign = header(request, 'sign')!;
    const check = verifyTokenRequest({ secret: app.appSecret, rawBody: rawBodyOf(request), timestamp, sign, nowMs: now.getTime() });
    if (!check.ok) throw new DomainError('INVALID_SIGNATURE', check.message);
    if (!(await this.repository.rememberSignedCall(app.id, signedCallKey(sign), signedCallExpiry(timestamp), now))) {
      throw new DomainError(
        'INVALID_SIGNATURE',
        'This signed call was already made: a signed call is accepted once, so sign each call with a new timestamp',
      );
    }
    return app;
  }

  /** The checks that need no body: headers, window, and a custom or public app with this key. */
  private async appOfHeaders(request: FastifyRequest): Promise<App> {
    const appKey = header(request, 'appkey');
    const check = checkTokenCallHeaders({
      appKey,
      timestamp: header(request, 'timestamp'),
      sign: header(request, 'sign'),
      nowMs: this.clock.now().getTime(),
    });
    if (!check.ok) throw new DomainError('INVALID_SIGNATURE', check.message);
    const app = await this.apps.appByKey(appKey!);
    if (!app || app.kind === 'private') throw new DomainError('INVALID_SIGNATURE', 'appkey: no custom or public app has this key');
    return app;
  }

  /** `POST /admin/oauth/token/create {"code"}`: the code names the store; on a store's host it must be that store. */
  async create(request: FastifyRequest, app: App, code: string): Promise<IssuedToken> {
    const row = code.length > 0 && code.length <= 200 ? await this.repository.findCode(hashToken(code)) : null;
    const now = this.clock.now();
    if (!row) throw new DomainError('INVALID_GRANT', 'code: unknown');
    if (row.appId !== app.id) throw new DomainError('INVALID_GRANT', 'code: was issued to another app');
    if (row.usedAt) throw new DomainError('INVALID_GRANT', 'code: was already used (a code is single-use)');
    if (row.expiresAt.getTime() <= now.getTime()) throw new DomainError('INVALID_GRANT', 'code: has expired (a code lives 10 minutes)');
    const store = await this.stores.getById(row.storeId);
    const host = resolveHost(request.host, this.config.baseDomain);
    if (host.kind === 'store' && host.handle !== store.handle) {
      throw new DomainError('INVALID_GRANT', `code: was issued for another store, not '${host.handle}'`);
    }
    checkStoreStatus(store, now);
    // One transaction: the code claimed (two exchanges at once give one token), the installation
    // given the code's scopes, earlier tokens of it the 5 minutes of a refresh, the new token stored.
    const issuedToken = await this.transactions.run(async (tx) => {
      if (!(await this.repository.claimCode(tx, row.id, now))) return undefined;
      const installation = await this.apps.upsertInstallation(tx, row.storeId, row.appId, row.scopes, now);
      return this.tokens.replace(tx, installation.id, app.kind as 'custom' | 'public', now);
    });
    // Another exchange of the same code won the race.
    if (!issuedToken) throw new DomainError('INVALID_GRANT', 'code: was already used (a code is single-use)');
    return issued(issuedToken.token, issuedToken.expiresAt, row.scopes, store);
  }

  /** `POST /admin/oauth/token/refresh`: before expiry, a new token; the old one lives 5 more minutes. */
  async refresh(request: FastifyRequest, app: App): Promise<IssuedToken> {
    const store = await this.storeOfHost(request);
    const installation = await this.installationOf(store, app);
    const now = this.clock.now();
    if (!(await this.tokens.hasLiveToken(installation.id))) {
      throw new DomainError(
        'TOKEN_EXPIRED',
        'The access token has expired; a token is refreshed before it expires, so authorize the app again',
      );
    }
    checkStoreStatus(store, now);
    // Refreshes of one installation run one after the other (its row locked): each supersedes the
    // token the one before issued, so two refreshes at once leave one token, not two, past the
    // 5 minutes. An installation cancelled meanwhile has no token to refresh.
    const fresh = await this.transactions.run(async (tx) => {
      if (!(await this.apps.lockInstallation(tx, installation.id))) {
        throw new DomainError('NOT_FOUND', `The app is not installed on store '${store.handle}'`);
      }
      return this.tokens.replace(tx, installation.id, app.kind as 'custom' | 'public', now);
    });
    return issued(fresh.token, fresh.expiresAt, installation.scopes, store);
  }

  /**
   * `POST /admin/oauth/token/cancel`: every token of the app on the store is invalid at once and the
   * installation goes. Allowed whatever the store's status: giving up access is never restricted.
   */
  async cancel(request: FastifyRequest, app: App): Promise<void> {
    const store = await this.storeOfHost(request);
    await this.installationOf(store, app);
    await this.apps.cancel(store.id, app.id);
  }

  /** decisions §1.2-§1.3: refresh and cancel name their store by the Host, `{handle}.{PLATFORM_BASE_DOMAIN}`. */
  private async storeOfHost(request: FastifyRequest): Promise<StoreRecord> {
    const host = resolveHost(request.host, this.config.baseDomain);
    if (host.kind !== 'store') {
      throw new DomainError(
        'INVALID_PARAMETER',
        `Send this call to the store's host, {handle}.${this.config.baseDomain}: the host names the store`,
      );
    }
    return this.stores.get(host.handle);
  }

  private async installationOf(store: StoreRecord, app: App) {
    const installation = await this.apps.installationOn(store.id, app.id);
    if (!installation) throw new DomainError('NOT_FOUND', `The app is not installed on store '${store.handle}'`);
    return installation;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * decisions §5.2: `scope` is the granted set exactly as the app requested it (stored in that order):
 * no implied read scope added, none the app asked for removed, so a client comparing the requested
 * set with this string sees no change and does not send the merchant through OAuth again.
 */
function issued(token: string, expiresAt: Date, scopes: string, store: StoreRecord): IssuedToken {
  return {
    accessToken: token,
    expireTime: formatInZone(expiresAt, store.ianaTimezone),
    scope: scopes.split(',').filter(Boolean).join(','),
  };
}
