import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';

/** The feedback of a product in one word: any app asking for action wins (docs/decisions.md, Merchant admin). */
export type FeedbackState = 'require_actions' | 'success';

export interface ProductQuery {
  storeId: bigint;
  /** Part of the title, any case (ASCII letters on SQLite, every letter on PostgreSQL). */
  title: string | undefined;
  /** Only products some app's feedback says need action. */
  requireActions: boolean;
  direction: 'next' | 'prev';
  /** Exclusive: products after this id (next) or before it (prev). */
  boundary: bigint;
  take: number;
}

/** A product's row as its merchant page shows it: the stored document holds the other fields. */
export interface ProductRecord {
  id: bigint;
  title: string;
  handle: string;
  status: string;
  /** The product's JSON document (vendor, product_type, tags, variants, ...). */
  doc: string;
  publishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TokenInfo {
  expiresAt: Date;
  /** Set when a refresh replaced it: it works until `expiresAt` (5 minutes, decisions §5.4). */
  supersededAt: Date | null;
  /** decisions §5.4: when the expiry reminder was sent; null while it was not. */
  reminderSentAt: Date | null;
}

export interface InstalledApp {
  id: bigint;
  name: string;
  kind: string;
  scopes: string;
  createdAt: Date;
  /** The installation's tokens, newest first (private apps show theirs). */
  tokens: TokenInfo[];
}

export interface TroubledSubscription {
  id: bigint;
  appId: bigint;
  appName: string;
  topic: string;
  address: string;
  status: string;
  disabledReason: string | null;
  failureStreak: number;
}

/** LIKE's own characters, escaped with `\` (the query says ESCAPE '\'). */
const likePattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The merchant room's read model (docs/architecture.md, "Tables and their owners"): reads only
 * the merchant pages make, across the tables of other features, with no rule to apply:
 * the product search with its filters, installations with their tokens, and the home page's plain
 * counts. Everything that applies a rule (access, validation) or writes goes through the owning
 * feature's service (merchant README, "Where reads and writes go").
 */
@Injectable()
export class MerchantReadModel {
  constructor(@InjectDb() private readonly db: Db) {}

  /** A page of the store's products by id, nearest the boundary first, filtered by title and feedback. */
  products(q: ProductQuery): Promise<{ id: bigint; title: string }[]> {
    const next = q.direction === 'next';
    const where = ['p.store_id = ?', next ? 'p.id > ?' : 'p.id < ?'];
    const params: unknown[] = [q.storeId.toString(), q.boundary.toString()];
    if (q.title !== undefined) {
      where.push(`LOWER(p.title) LIKE ? ESCAPE '\\'`);
      params.push(likePattern(q.title));
    }
    if (q.requireActions) {
      where.push(
        `EXISTS (SELECT 1 FROM resource_feedback f WHERE f.store_id = p.store_id AND f.product_id = p.id AND f.state = 'require_actions')`,
      );
    }
    params.push(q.take);
    return this.db.query(
      `SELECT p.id, p.title FROM products p WHERE ${where.join(' AND ')} ORDER BY p.id ${next ? 'ASC' : 'DESC'} LIMIT ?`,
      params,
    );
  }

  product(storeId: bigint, id: bigint): Promise<ProductRecord | null> {
    return this.db.prisma.product.findFirst({
      where: { storeId, id },
      select: { id: true, title: true, handle: true, status: true, doc: true, publishedAt: true, createdAt: true, updatedAt: true },
    });
  }

  /** The titles of these products of the store. */
  async productTitles(storeId: bigint, ids: readonly bigint[]): Promise<Map<bigint, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.prisma.product.findMany({ where: { storeId, id: { in: [...ids] } }, select: { id: true, title: true } });
    return new Map(rows.map((r) => [r.id, r.title]));
  }

  /** The names of these apps (who made a definition). */
  async appNames(ids: readonly bigint[]): Promise<Map<bigint, string>> {
    if (ids.length === 0) return new Map();
    const apps = await this.db.prisma.app.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } });
    return new Map(apps.map((a) => [a.id, a.name]));
  }

  /** Each product's feedback in one word (absent: no app sent any). */
  async feedbackStates(storeId: bigint, productIds: readonly bigint[]): Promise<Map<bigint, FeedbackState>> {
    const states = new Map<bigint, FeedbackState>();
    if (productIds.length === 0) return states;
    const rows = await this.db.prisma.resourceFeedback.findMany({
      where: { storeId, productId: { in: [...productIds] } },
      select: { productId: true, state: true },
    });
    for (const row of rows) {
      if (row.state === 'require_actions' || !states.has(row.productId)) states.set(row.productId, row.state as FeedbackState);
    }
    return states;
  }

  /** Products some app's latest feedback says need action. */
  async productsRequiringAction(storeId: bigint): Promise<number> {
    const [row] = await this.db.query<{ n: bigint | number }>(
      `SELECT COUNT(DISTINCT product_id) AS n FROM resource_feedback WHERE store_id = ? AND state = 'require_actions'`,
      [storeId.toString()],
    );
    return Number(row?.n ?? 0);
  }

  /** The apps installed on a store, with their tokens. */
  async installedApps(storeId: bigint): Promise<InstalledApp[]> {
    const rows = await this.db.prisma.installation.findMany({
      where: { storeId },
      include: { app: true, accessTokens: tokenColumns },
      orderBy: { id: 'asc' },
    });
    return rows.map(toInstalledApp);
  }

  /** One app installed on a store; undefined when it is not installed there. */
  async installedApp(storeId: bigint, appId: bigint): Promise<InstalledApp | undefined> {
    const row = await this.db.prisma.installation.findFirst({
      where: { storeId, appId },
      include: { app: true, accessTokens: tokenColumns },
    });
    return row ? toInstalledApp(row) : undefined;
  }

  /** Subscriptions that are disabled, or whose last deliveries failed (decisions §11.5), with their app's name. */
  async troubledSubscriptions(storeId: bigint, take: number): Promise<TroubledSubscription[]> {
    const rows = await this.db.prisma.webhookSubscription.findMany({
      where: { storeId, OR: [{ status: 'disabled' }, { failureStreak: { gt: 0 } }] },
      orderBy: { id: 'asc' },
      take,
    });
    const nameOf = await this.appNames(rows.map((r) => r.appId));
    return rows.map((r) => ({
      id: r.id,
      appId: r.appId,
      appName: nameOf.get(r.appId) ?? `App ${r.appId.toString()}`,
      topic: r.topic,
      address: r.address,
      status: r.status,
      disabledReason: r.disabledReason,
      failureStreak: r.failureStreak,
    }));
  }

  /** Current private-app tokens of the store expiring in (now, until]. */
  privateTokensExpiring(storeId: bigint, now: Date, until: Date): Promise<number> {
    return this.db.prisma.accessToken.count({
      where: { supersededAt: null, expiresAt: { gt: now, lte: until }, installation: { storeId, app: { kind: 'private' } } },
    });
  }
}

const tokenColumns = {
  select: { expiresAt: true, supersededAt: true, reminderSentAt: true },
  orderBy: { id: 'desc' },
} as const;

function toInstalledApp(row: {
  scopes: string;
  createdAt: Date;
  app: { id: bigint; name: string; kind: string };
  accessTokens: TokenInfo[];
}): InstalledApp {
  return { id: row.app.id, name: row.app.name, kind: row.app.kind, scopes: row.scopes, createdAt: row.createdAt, tokens: row.accessTokens };
}
