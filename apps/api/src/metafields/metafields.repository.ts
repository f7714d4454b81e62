import { toId } from '../http/ids';
import { Injectable } from '@nestjs/common';
import { insertRows, updateRows, type Db, type Metafield, type Provider, type RowUpdate } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';
import type { DefinitionRow } from './metafield-rules';

/** decisions §8.1: values live on products only. */
export const OWNER_RESOURCE = 'products';

export type MetafieldRow = Metafield;

/** One value to write, already validated. */
export interface PlannedWrite {
  ownerId: bigint;
  namespace: string;
  key: string;
  type: string;
  value: string;
  definitionId: bigint | null;
  checkedRevision: number;
}

/** What a write was validated against: the definition's version, re-read inside the transaction. */
/**
 * What a value's checks read from its definition: a write validated against them is written only
 * if they are unchanged (its name or description may have changed meanwhile: they decide nothing).
 */
export interface DefinitionVersion {
  id: bigint;
  rulesRevision: number;
  type: string;
  accessAdmin: string | null;
}

const VERSION_COLUMNS = { id: true, rulesRevision: true, type: true, accessAdmin: true } as const;

/** Whether the stored definition still is the version a write was validated against. */
function sameVersion(stored: Omit<DefinitionVersion, 'id'> | null | undefined, v: DefinitionVersion): boolean {
  return stored != null && stored.rulesRevision === v.rulesRevision && stored.type === v.type && stored.accessAdmin === v.accessAdmin;
}

/** Thrown inside a write transaction when a definition changed after validation: validate again. */
export class DefinitionChanged extends Error {
  constructor() {
    super('a metafield definition changed while the write was validated');
  }
}

export interface ValuePageQuery {
  storeId: bigint;
  ownerId: bigint;
  direction: 'next' | 'prev';
  /** Exclusive: rows after this id (next) or before it (prev). */
  boundary: bigint;
  /** Exclusive lower bound of the whole listing (since_id). */
  sinceId: bigint;
  namespaces: string[] | undefined;
  key: string | undefined;
  take: number;
}

/** The definition columns value checks need (shared with the re-check's reads). */
export const DEFINITION_COLUMNS = {
  id: true,
  appId: true,
  namespace: true,
  key: true,
  description: true,
  type: true,
  validations: true,
  accessAdmin: true,
  rulesRevision: true,
  updatedAt: true,
} as const;

type Tx = Parameters<Parameters<Db['prisma']['$transaction']>[0]>[0];

/**
 * Locks the values `ids` in id order, then reads their updated_at: two statements whatever the
 * count (issue 17). PostgreSQL: `FOR NO KEY UPDATE` (the lock an UPDATE takes) under `ORDER BY id`,
 * which takes the row locks in id order; SQLite: an update that changes nothing, which takes the one
 * write lock. Read without the lock, two writes of one value at once on PostgreSQL (READ COMMITTED)
 * could both read the same stored time and both write the same next one (nextUpdatedAt); under it,
 * the second reads what the first wrote.
 */
async function lockedUpdatedAt(tx: Tx, provider: Provider, ids: readonly bigint[]): Promise<Map<bigint, Date>> {
  if (ids.length === 0) return new Map();
  const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const list = sorted.map((_, i) => (provider === 'postgresql' ? `$${i + 1}` : '?')).join(',');
  if (provider === 'postgresql')
    await tx.$queryRawUnsafe(`SELECT id FROM metafields WHERE id IN (${list}) ORDER BY id FOR NO KEY UPDATE`, ...sorted);
  else await tx.$executeRawUnsafe(`UPDATE metafields SET updated_at = updated_at WHERE id IN (${list})`, ...sorted);
  const rows = await tx.metafield.findMany({ where: { id: { in: sorted } }, select: { id: true, updatedAt: true } });
  return new Map(rows.map((r) => [r.id, r.updatedAt]));
}

/** A new value by the bulk set, one multi-row INSERT for all (the ORM's createMany cost about 8 ms a request of 25). */
const CREATE_COLUMNS = [
  'store_id',
  'owner_resource',
  'owner_id',
  'namespace',
  'key',
  'type',
  'value',
  'definition_id',
  'app_id',
  'valid',
  'invalid_reasons',
  'checked_revision',
  'created_at',
  'updated_at',
] as const;

/** An overwrite by the bulk set: every column a write sets, matched on the id. */
const OVERWRITE: RowUpdate = {
  match: ['id'],
  set: ['type', 'value', 'definition_id', 'app_id', 'valid', 'invalid_reasons', 'checked_revision', 'updated_at'],
  pgTypes: {
    id: 'bigint',
    type: 'text',
    value: 'text',
    definition_id: 'bigint',
    app_id: 'bigint',
    valid: 'boolean',
    invalid_reasons: 'text',
    checked_revision: 'integer',
    updated_at: 'timestamp(3)',
  },
};

@Injectable()
export class MetafieldsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  async productExists(storeId: bigint, productId: bigint): Promise<boolean> {
    const rows = await this.db.query('SELECT id FROM products WHERE store_id = ? AND id = ?', [storeId.toString(), productId.toString()]);
    return rows.length > 0;
  }

  async existingProducts(storeId: bigint, productIds: bigint[]): Promise<Set<bigint>> {
    if (productIds.length === 0) return new Set();
    const rows = await this.db.prisma.product.findMany({ where: { storeId, id: { in: productIds } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** The store's product definitions matching any of these (stored namespace, key) pairs. */
  async definitionsFor(storeId: bigint, pairs: { namespace: string; key: string }[]): Promise<DefinitionRow[]> {
    if (pairs.length === 0) return [];
    const unique = [...new Map(pairs.map((p) => [`${p.namespace}\u0000${p.key}`, p])).values()];
    return this.db.prisma.metafieldDefinition.findMany({
      where: { storeId, ownerResource: OWNER_RESOURCE, OR: unique.map((p) => ({ namespace: p.namespace, key: p.key })) },
      select: DEFINITION_COLUMNS,
    });
  }

  /** decisions §8.14: the definition each of these metaobjects belongs to (absent: no such metaobject in the store). */
  async metaobjectDefinitions(storeId: bigint, ids: string[]): Promise<Map<string, string>> {
    const numeric = ids.map(toId).filter((id): id is bigint => id !== undefined);
    if (numeric.length === 0) return new Map();
    const rows = await this.db.prisma.metaobject.findMany({
      where: { storeId, id: { in: numeric } },
      select: { id: true, definitionId: true },
    });
    return new Map(rows.map((r) => [r.id.toString(), r.definitionId.toString()]));
  }

  findValue(storeId: bigint, ownerId: bigint, id: bigint): Promise<MetafieldRow | null> {
    return this.db.prisma.metafield.findFirst({ where: { id, storeId, ownerResource: OWNER_RESOURCE, ownerId } });
  }

  /**
   * Writes every planned value in one transaction, creating or updating by (owner, namespace, key):
   * all or nothing (decisions §8.9). `versions` are the definitions the plan was validated against;
   * if one changed or vanished meanwhile, nothing is written and DefinitionChanged is thrown.
   */
  async writeAll(
    storeId: bigint,
    appId: bigint | null,
    writes: PlannedWrite[],
    versions: DefinitionVersion[],
    now: Date,
  ): Promise<{ row: MetafieldRow; created: boolean }[]> {
    return storage(
      this.db.prisma.$transaction(
        async (tx) => {
          if (versions.length > 0) {
            const current = await tx.metafieldDefinition.findMany({
              where: { id: { in: versions.map((v) => v.id) } },
              select: VERSION_COLUMNS,
            });
            const byId = new Map(current.map((d) => [d.id, d]));
            for (const v of versions) {
              const stored = byId.get(v.id);
              if (!sameVersion(stored, v)) {
                throw new DefinitionChanged();
              }
            }
          }
          // By IN lists on the unique index's columns, then exact pairs in memory: an OR of 25
          // (owner, namespace, key) terms made SQLite scan every value of the store (issue 17).
          const identity = (w: { ownerId: bigint; namespace: string; key: string }) => `${w.ownerId}\u0000${w.namespace}\u0000${w.key}`;
          const wanted = new Set(writes.map(identity));
          const distinct = <T>(pick: (w: PlannedWrite) => T) => [...new Set(writes.map(pick))];
          const keyed = {
            storeId,
            ownerResource: OWNER_RESOURCE,
            ownerId: { in: distinct((w) => w.ownerId) },
            namespace: { in: distinct((w) => w.namespace) },
            key: { in: distinct((w) => w.key) },
          };
          const existing = (
            await tx.metafield.findMany({ where: keyed, select: { id: true, ownerId: true, namespace: true, key: true } })
          ).filter((e) => wanted.has(identity(e)));
          const idOf = new Map(existing.map((e) => [identity(e), e.id]));
          // Rows are locked and changed in id order (new ones last), as the re-check does, so
          // concurrent transactions on PostgreSQL take row locks in one order and cannot deadlock
          // each other; their updated_at is read under the lock (see updateOne). A statement for
          // all overwrites and one for all new values (issue 17), not one per value.
          const updatedAtOf = await lockedUpdatedAt(
            tx,
            this.db.provider,
            existing.map((e) => e.id),
          );
          const overwrites: unknown[][] = [];
          const creates: unknown[][] = [];
          for (const w of writes) {
            const id = idOf.get(identity(w));
            // A value written now is checked now, against the newest rules: valid (decisions §8.12).
            if (id !== undefined) {
              // An overwrite is an update: updated_at visibly moves on, even within one second (nextUpdatedAt).
              overwrites.push([
                id,
                w.type,
                w.value,
                w.definitionId,
                appId,
                true,
                '[]',
                w.checkedRevision,
                nextUpdatedAt(updatedAtOf.get(id), now),
              ]);
            } else {
              creates.push([
                storeId,
                OWNER_RESOURCE,
                w.ownerId,
                w.namespace,
                w.key,
                w.type,
                w.value,
                w.definitionId,
                appId,
                true,
                '[]',
                w.checkedRevision,
                now,
                now,
              ]);
            }
          }
          overwrites.sort((a, b) => ((a[0] as bigint) < (b[0] as bigint) ? -1 : 1));
          await updateRows(tx, this.db.provider, 'metafields', OVERWRITE, overwrites);
          await insertRows(tx, this.db.provider, 'metafields', CREATE_COLUMNS, creates);
          const written = new Map((await tx.metafield.findMany({ where: keyed })).map((row) => [identity(row), row]));
          return writes.map((w) => ({ row: written.get(identity(w))!, created: !idOf.has(identity(w)) }));
        },
        { timeout: 30_000, maxWait: 30_000 },
      ),
    );
  }

  /**
   * Changes one value by id (PUT), with the same definition fence as writeAll. `updated_at` moves to
   * a later rendered second than the stored one (nextUpdatedAt), read under the row's lock, so two
   * writes at once get two different, increasing times (see lockedUpdatedAt).
   */
  async updateOne(id: bigint, appId: bigint | null, write: PlannedWrite, versions: DefinitionVersion[], now: Date): Promise<MetafieldRow> {
    return storage(
      this.db.prisma.$transaction(async (tx) => {
        const storedAt = (await lockedUpdatedAt(tx, this.db.provider, [id])).get(id);
        for (const v of versions) {
          const current = await tx.metafieldDefinition.findUnique({ where: { id: v.id }, select: VERSION_COLUMNS });
          if (!sameVersion(current, v)) {
            throw new DefinitionChanged();
          }
        }
        return tx.metafield.update({
          where: { id },
          data: {
            type: write.type,
            value: write.value,
            definitionId: write.definitionId,
            appId,
            valid: true,
            invalidReasons: '[]',
            checkedRevision: write.checkedRevision,
            updatedAt: nextUpdatedAt(storedAt, now),
          },
        });
      }),
    );
  }

  async deleteValue(id: bigint): Promise<void> {
    await this.db.prisma.metafield.deleteMany({ where: { id } });
  }

  /** Keyset page of a product's values, nearest to the boundary first (as the product listing). */
  page(q: ValuePageQuery): Promise<MetafieldRow[]> {
    const filters = {
      storeId: q.storeId,
      ownerResource: OWNER_RESOURCE,
      ownerId: q.ownerId,
      ...(q.namespaces ? { namespace: { in: q.namespaces } } : {}),
      ...(q.key !== undefined ? { key: q.key } : {}),
    };
    return this.db.prisma.metafield.findMany({
      where: q.direction === 'next' ? { ...filters, id: { gt: q.boundary } } : { ...filters, id: { lt: q.boundary, gt: q.sinceId } },
      orderBy: { id: q.direction === 'next' ? 'asc' : 'desc' },
      take: q.take,
    });
  }

  /** How many values each definition has that the re-checks marked invalid (the merchant's home page). */
  async invalidCountsByDefinition(storeId: bigint): Promise<Map<bigint, number>> {
    const groups = await this.db.prisma.metafield.groupBy({
      by: ['definitionId'],
      where: { storeId, valid: false, definitionId: { not: null } },
      _count: { _all: true },
    });
    return new Map(groups.flatMap((g) => (g.definitionId === null ? [] : [[g.definitionId, g._count._all] as const])));
  }

  /** The store's definitions with these ids (the columns value checks need). */
  definitionsById(storeId: bigint, ids: readonly bigint[]): Promise<DefinitionRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.prisma.metafieldDefinition.findMany({ where: { storeId, id: { in: [...ids] } }, select: DEFINITION_COLUMNS });
  }

  /** The values of these products that the re-checks marked invalid (a flag on the merchant's products list). */
  invalidOfProducts(storeId: bigint, productIds: readonly bigint[]): Promise<MetafieldRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db.prisma.metafield.findMany({
      where: { storeId, ownerResource: OWNER_RESOURCE, ownerId: { in: [...productIds] }, valid: false, definitionId: { not: null } },
    });
  }

  /** Operator listing (decisions §10): a store's values by ascending id, optionally by verdict. */
  storePage(storeId: bigint, valid: boolean | undefined, sinceId: bigint, take: number): Promise<MetafieldRow[]> {
    // A value without a definition has no rules, so it is valid whatever an old verdict said.
    const verdict =
      valid === undefined ? {} : valid ? { OR: [{ valid: true }, { definitionId: null }] } : { valid: false, definitionId: { not: null } };
    return this.db.prisma.metafield.findMany({
      where: { storeId, id: { gt: sinceId }, ...verdict },
      orderBy: { id: 'asc' },
      take,
    });
  }
}
