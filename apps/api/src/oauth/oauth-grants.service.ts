import { Injectable } from '@nestjs/common';
import type { App } from '@platform/db';
import {
  canonicalQuery,
  checkGrant,
  checkStoreStatus,
  checkRedirectUrl,
  DomainError,
  hashToken,
  isRegisteredRedirect,
  OAUTH_CODE_MINUTES,
  signQuery,
  type Scope,
} from '@platform/domain';
import type { FastifyRequest } from 'fastify';
import { newSecret } from '../tokens/new-secret';
import { AppsService } from '../apps/apps.service';
import { StoresService } from '../stores/stores.service';
import { ClockService } from '../core/clock.service';
import type { MerchantSession } from '../merchant/merchant-request';
import type { StoreRecord } from '../stores/stores.service';
import { OAuthRepository } from './oauth.repository';

/** Longest `customField` carried through the consent page: it is the app's state, not a document. */
const MAX_CUSTOM_FIELD = 1024;

export interface AuthorizeRequest {
  store: StoreRecord;
  app: App;
  scopes: Scope[];
  redirectUri: string;
  /** The redirect URL's origin as parsed (checkRedirectUrl): the consent page's CSP form-action. */
  redirectOrigin: string;
  customField: string;
}

/** One query parameter given once (Fastify reads a repeated one as an array: refused). */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new DomainError('INVALID_PARAMETER', `${name}: give it once`);
  return value;
}

/** The merchant's approval: the consent form's checks, and the code both approvals give (decisions §5.2, §10). */
@Injectable()
export class OAuthGrantsService {
  constructor(
    private readonly repository: OAuthRepository,
    private readonly clock: ClockService,
    private readonly apps: AppsService,
    private readonly stores: StoresService,
  ) {}

  /**
   * Checks an authorize request before anything is shown. Every failure is an error page with a 4xx
   * status, never a redirect: the redirect target is trusted only once it is one the app registered.
   */
  async checkAuthorize(store: StoreRecord, query: Record<string, unknown>): Promise<AuthorizeRequest> {
    const appKey = single(query, 'appKey');
    if (!appKey) throw new DomainError('INVALID_PARAMETER', 'appKey: required (the app key of the app to install)');
    const app = await this.apps.appByKey(appKey);
    if (!app) throw new DomainError('INVALID_PARAMETER', 'appKey: no app has this key');
    const redirectUri = single(query, 'redirectUri');
    if (!isRegisteredRedirect(redirectUri, JSON.parse(app.redirectUrls) as string[])) {
      throw new DomainError('INVALID_PARAMETER', "redirectUri: is not one of the app's registered redirect URLs (compared exactly)");
    }
    // A URL registered before redirect URLs were parsed (issue 14): refused here, never a broken page.
    const redirect = checkRedirectUrl(redirectUri);
    if (!redirect.ok) throw new DomainError('INVALID_PARAMETER', `redirectUri: ${redirect.message}`);
    const responseType = single(query, 'responseType');
    if (responseType !== 'code') throw new DomainError('INVALID_PARAMETER', "responseType: must be 'code'");
    const customField = single(query, 'customField') ?? '';
    if (customField.length > MAX_CUSTOM_FIELD) {
      throw new DomainError('INVALID_PARAMETER', `customField: is longer than ${MAX_CUSTOM_FIELD} characters`);
    }
    const grant = checkGrant(this.grantable(app), store.id, single(query, 'scope') ?? '');
    if (!grant.ok) throw new DomainError(grant.reason === 'OTHER_STORE' ? 'ACCESS_DENIED' : 'INVALID_PARAMETER', grant.message);
    checkStoreStatus(store, this.clock.now());
    return { store, app, scopes: grant.scopes, redirectUri, redirectOrigin: redirect.origin, customField };
  }

  /** A consent form for a signed-in merchant: its one-time token is the form's CSRF token. */
  async openConsent(session: MerchantSession, request: AuthorizeRequest): Promise<string> {
    const token = newSecret();
    const now = this.clock.now();
    await this.repository.createConsent({
      sessionId: session.id,
      storeId: request.store.id,
      appId: request.app.id,
      scopes: request.scopes.join(','),
      redirectUri: request.redirectUri,
      customField: request.customField,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + OAUTH_CODE_MINUTES * 60_000),
      createdAt: now,
    });
    return token;
  }

  /**
   * The posted form: its token must be one this session was shown on this store, unused and not
   * older than 10 minutes. A forged form has no such token; a replayed one finds it used.
   */
  async decide(
    request: FastifyRequest,
    session: MerchantSession,
    store: StoreRecord,
    fields: Record<string, string> | undefined,
  ): Promise<string> {
    // A form without a decision is refused before its token is spent, so the merchant can still choose.
    const decision = fields?.decision;
    if (decision !== 'approve' && decision !== 'decline')
      throw new DomainError('INVALID_PARAMETER', "decision: must be 'approve' or 'decline'");
    const token = fields?.consent_token;
    const consent =
      typeof token === 'string' && token.length > 0 && token.length <= 200
        ? await this.repository.redeemConsent(hashToken(token), session.id, store.id, this.clock.now())
        : undefined;
    if (!consent) {
      throw new DomainError(
        'FORM_REFUSED',
        'This approval form is not valid: it was already used, is older than 10 minutes, or was not shown to you. Go back to the app and start again.',
      );
    }
    if (decision === 'decline') {
      // decisions §5.2: a decline redirects with an error and no code.
      return withParams(consent.redirectUri, { error: 'access_denied', customField: consent.customField });
    }
    const app = await this.apps.appById(consent.appId);
    if (!app) throw new DomainError('NOT_FOUND', 'This app no longer exists');
    checkStoreStatus(store, this.clock.now());
    const { code } = await this.issueCode(store, app, consent.scopes.split(','), 'scope');
    const params = {
      appkey: app.appKey,
      code,
      handle: store.handle,
      timestamp: String(this.clock.now().getTime()),
      customField: consent.customField,
    };
    // decisions §5.2: `sign` covers every query parameter of the redirect but itself.
    const existing = Object.fromEntries(new URL(consent.redirectUri).searchParams);
    return withParams(consent.redirectUri, { ...params, sign: signQuery({ ...existing, ...params }, app.appSecret) });
  }

  /**
   * The code of an approval (consent page or operator install): 10 minutes, single use, bound to the
   * app, the store and the granted scopes. A custom app is bound to its first store here.
   */
  async issueCode(store: StoreRecord, app: App, requested: unknown, field: string): Promise<{ code: string }> {
    const grant = checkGrant(this.grantable(app), store.id, requested, field);
    if (!grant.ok) throw new DomainError('VALIDATION_FAILED', grant.message);
    if (app.kind === 'custom' && !(await this.apps.bindCustomApp(app.id, store.id))) {
      throw new DomainError('VALIDATION_FAILED', 'app: is a custom app of another store; a custom app installs on one store only');
    }
    const code = newSecret(24);
    const now = this.clock.now();
    await this.repository.createCode({
      codeHash: hashToken(code),
      storeId: store.id,
      appId: app.id,
      scopes: grant.scopes.join(','),
      expiresAt: new Date(now.getTime() + OAUTH_CODE_MINUTES * 60_000),
      createdAt: now,
    });
    return { code };
  }

  /**
   * The merchant's approval without the browser (decisions §10): the same code the consent page
   * gives (10 minutes, single use, bound to app, store and scopes). A custom app already bound to
   * another store is refused with 422 (docs/decisions.md).
   */
  async install(handle: string, appId: bigint, requested: string[]): Promise<{ code: string }> {
    const store = await this.stores.get(handle);
    const app = await this.apps.appById(appId);
    if (!app || app.kind === 'private') throw new DomainError('NOT_FOUND', 'App not found');
    return this.issueCode(store, app, requested, 'scopes');
  }

  private grantable(app: App) {
    return { kind: app.kind as 'private' | 'custom' | 'public', scopes: app.scopes ? app.scopes.split(',') : [], storeId: app.storeId };
  }
}

/**
 * The URL with these query parameters set, written in the canonical form `sign` is computed over
 * (sorted, `encodeURIComponent`), then `sign`: the query as sent is the signed text, so an app
 * verifying the raw query and one verifying parsed values agree (decisions §5.2).
 */
function withParams(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  const all: Record<string, string> = { ...Object.fromEntries(target.searchParams), ...params };
  const sign = all.sign === undefined ? '' : `&sign=${encodeURIComponent(all.sign)}`;
  return `${target.origin}${target.pathname}?${canonicalQuery(all)}${sign}${target.hash}`;
}
