import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DomainError, hashToken, resolveHost, safeEqual } from '@platform/domain';
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newSecret } from '../tokens/new-secret';
import { ClockService } from '../core/clock.service';
import { acceptedSecrets, DEMO_HANDLE, type Config } from '../config';
import { InjectConfig } from '../core/injection';
import { BodyGates } from '../http/body-gates';
import { StoresService, type StoreRecord } from '../stores/stores.service';
import { NotOnStoreHost, sendErrorPage, SignInNeeded } from './merchant-errors.filter';
import { rememberHostStore, type MerchantSession } from './merchant-request';
import { MERCHANT_FORMS } from './merchant-forms';
import { MerchantSessionsRepository, type SessionRow } from './merchant-sessions.repository';

/** decisions §10: a sign-in link lives 10 minutes and opens once. */
export const SIGN_IN_LINK_MINUTES = 10;
/** A merchant session lasts a working day, then the merchant asks for a new link (docs/oauth.md). */
export const SESSION_HOURS = 8;
export const SESSION_COOKIE = 'platform_admin_session';

/** The scheme and port links are built with: a request's (`request.protocol`, `request.port`). */
export interface LinkBase {
  protocol: string;
  port: number | null;
}

/** Merchant sign-in links and sessions on a store's own host (decisions §1.2, §10). */
@Injectable()
export class MerchantSessionsService implements OnModuleInit {
  constructor(
    private readonly repository: MerchantSessionsRepository,
    private readonly stores: StoresService,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
    @Inject(BodyGates) private readonly gates: BodyGates,
  ) {}

  /**
   * Before a byte of a merchant form's body is read (issue 14, finding 1): the post is on a store's
   * host, from no foreign Origin, with a live session of that store. Anyone else is answered on
   * their headers; a signed-in merchant's form is at most its route's limit (16 KB, 1 MB for metafields). The handler still checks the form's
   * token (it is in the body).
   */
  onModuleInit(): void {
    for (const [route, { signedOut, maxBytes }] of MERCHANT_FORMS) {
      this.gates.set('POST', route, {
        maxBytes,
        admit: async (request) => {
          const store = await this.storeOfHost(request);
          if (!(await this.current(request, store))) throw new SignInNeeded(store, '/admin', this.hadSession(request));
          this.checkOrigin(request);
        },
        refuse: (request, reply, error) => {
          if (error instanceof SignInNeeded && signedOut === 'home') return reply.code(303).header('location', '/admin').send();
          return sendErrorPage(request, reply, error);
        },
      });
    }
  }

  /** The origin of a store's own host, in the scheme and port the request came with (decisions §1.4). */
  storeOrigin(via: LinkBase, handle: string): string {
    const { protocol, port } = via;
    const defaultPort = protocol === 'https' ? 443 : 80;
    return `${protocol}://${this.stores.domainOf(handle)}${port && port !== defaultPort ? `:${port}` : ''}`;
  }

  /**
   * The operator's one-time sign-in link (`POST /platform/v1/stores/{handle}/admin_sessions`, and
   * the start command's line for the demo store), on the store's host in the caller's scheme and port.
   */
  async createSignInLink(via: LinkBase, handle: string): Promise<{ url: string }> {
    const store = await this.stores.get(handle);
    const token = newSecret();
    const now = this.clock.now();
    await this.repository.createLink(store.id, hashToken(token), new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000), now);
    return { url: `${this.storeOrigin(via, store.handle)}/admin/sign-in?token=${token}` };
  }

  /** The store whose host the request names; merchant pages exist only there. */
  async storeOfHost(request: FastifyRequest): Promise<StoreRecord> {
    const host = resolveHost(request.host, this.config.baseDomain);
    if (host.kind !== 'store') {
      // The store hosts in this request's scheme and port (issue 47: a link, not a riddle).
      const via = { protocol: request.protocol, port: request.port ?? null };
      throw new NotOnStoreHost(
        this.config.baseDomain,
        this.storeOrigin(via, '{handle}'),
        this.config.seedDemo ? this.storeOrigin(via, DEMO_HANDLE) : undefined,
      );
    }
    const store = await this.stores.get(host.handle).catch(() => {
      throw new DomainError('NOT_FOUND', `There is no store '${host.handle}'`);
    });
    rememberHostStore(request, store);
    return store;
  }

  /** Whether the request carries a session cookie at all (one that is no live session: it ended). */
  hadSession(request: FastifyRequest): boolean {
    return (readCookie(request.headers.cookie, SESSION_COOKIE) ?? '') !== '';
  }

  /** Opens a session from a link; the cookie is host-only, so it belongs to this store's host alone. */
  async signIn(request: FastifyRequest, reply: FastifyReply, store: StoreRecord, token: unknown): Promise<void> {
    const now = this.clock.now();
    const sessionToken = newSecret();
    const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000);
    const session =
      typeof token === 'string' && token.length > 0 && token.length <= 200
        ? await this.repository.redeemLink(store.id, hashToken(token), hashToken(sessionToken), expiresAt, now)
        : undefined;
    if (!session) {
      throw new DomainError('UNAUTHENTICATED', 'This sign-in link is unknown, expired or already used. Ask for a new one.');
    }
    const previous = await this.current(request, store);
    if (previous) await this.repository.deleteSession(previous.id);
    await this.repository.deleteExpired(now);
    void reply.header('set-cookie', this.cookie(request, sessionToken, SESSION_HOURS * 3600));
  }

  async signOut(request: FastifyRequest, reply: FastifyReply, session: MerchantSession): Promise<void> {
    await this.repository.deleteSession(session.id);
    void reply.header('set-cookie', this.cookie(request, '', 0));
  }

  /** The signed-in session of this store's host, if any (expired or foreign ones are none). */
  async current(request: FastifyRequest, store: StoreRecord): Promise<MerchantSession | undefined> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token) return undefined;
    const row = await this.repository.findSession(store.id, hashToken(token), this.clock.now());
    return row ? { ...row, formToken: this.formTokenOf(row) } : undefined;
  }

  /**
   * A form post must come from the store's own pages: when the browser names the page's origin
   * (every current browser does on POST), it must be this host's; the form's token must be the
   * session's. SameSite=Lax already keeps the cookie off cross-site posts; these are the second lock.
   */
  checkForm(request: FastifyRequest, session: MerchantSession, formToken: unknown): void {
    this.checkOrigin(request);
    // A form made before a PLATFORM_SECRET rotation still posts while the previous secret is accepted.
    const accepted = acceptedSecrets(this.config).map((secret) => this.formTokenOf(session, secret));
    if (typeof formToken !== 'string' || !accepted.some((token) => safeEqual(formToken, token))) {
      throw new DomainError('FORM_REFUSED', 'This form was not sent from your signed-in page; open the page again and retry.');
    }
  }

  checkOrigin(request: FastifyRequest): void {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `${request.protocol}://${request.host}`) {
      throw new DomainError('FORM_REFUSED', 'This form was sent from another site and is refused.');
    }
  }

  private formTokenOf(session: SessionRow, secret = this.config.secret): string {
    return createHmac('sha256', secret).update(`merchant-form:${session.id}:${session.tokenHash}`).digest('base64url');
  }

  private cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
    // Host-only (no Domain attribute): the cookie of one store's host is never sent to another's.
    const secure = request.protocol === 'https' ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
  }
}

/** The value of one cookie of a Cookie header (the first of that name). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
