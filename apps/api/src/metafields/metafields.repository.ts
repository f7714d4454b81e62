import { toId } from '../http/ids';
import { Injectable } from '@nestjs/common';
import { insertRows, updateRows, type Db, type Metafield, type Provider } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';
import type { DefinitionRow } from './metafield-rules';
import { CREATE_COLUMNS, lockedUpdatedAt, OVERWRITE, placeholders, readValues, toDefinitionRow, identity, type Tx } from './value-sql';

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

/** Whether the stored definition still is the version a write was validated against. */
function sameVersion(stored: Omit<DefinitionVersion, 'id'> | null | undefined, v: DefinitionVersion): boolean {
  return stored != null && stored.rulesRevision === v.rulesRevision && stored.type === v.type && stored.accessAdmin === v.accessAdmin;
}

/**
 * Inside a write transaction: every definition of `versions` still as validated, else
 * DefinitionChanged (one raw read). On PostgreSQL the rows are read FOR SHARE and stay locked until
 * the write commits: a definition's delete or change waits for the write, and a write waiting for
 * one reads the definition as it committed (gone or changed: validate again). Read without the lock,
 * a delete committing between this read and the write's own left values pointing at the deleted
 * definition, even after `delete_all_associated_metafields` (found by a black-box probe). Every
 * write takes this lock before its values' locks, as the delete does, so the two never deadlock.
 */
async function checkVersions(tx: Tx, provider: Provider, versions: DefinitionVersion[]): Promise<void> {
  if (versions.length === 0) return;
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT ${provider === 'sqlite' ? 'CAST(id AS TEXT)' : 'id'} AS id, rules_revision, "type", access_admin FROM metafield_definitions WHERE id IN (${placeholders(provider, versions.length)})${provider === 'sqlite' ? '' : ' ORDER BY id FOR SHARE'}`,
    ...versions.map((v) => v.id),
  );
  const byId = new Map(
    rows.map((r) => [
      BigInt(r.id as bigint | string),
      { rulesRevision: Number(r.rules_revision), type: r.type as string, accessAdmin: (r.access_admin as string | null) ?? null },
    ]),
  );
  for (const v of versions) if (!sameVersion(byId.get(v.id), v)) throw new DefinitionChanged();
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

@Injectable()
export class MetafieldsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * The store's product definitions matching any of these (stored namespace, key) pairs: by IN
   * lists on the unique index's columns, exact pairs in memory, straight to the driver rather than
   * through the ORM's query compiler (every metafield read and write asks this first).
   */
  async definitionsFor(storeId: bigint, pairs: { namespace: string; key: string }[]): Promise<DefinitionRow[]> {
    if (pairs.length === 0) return [];
    const pairKey = (p: { namespace: string; key: string }) => `${p.namespace}\u0000${p.key}`;
    const wanted = new Set(pairs.map(pairKey));
    const namespaces = [...new Set(pairs.map((p) => p.namespace))];
    const keys = [...new Set(pairs.map((p) => p.key))];
    const list = (n: number) => Array.from({ length: n }, () => '?').join(',');
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT id, app_id, namespace, "key", description, "type", validations, access_admin, rules_revision, updated_at
       FROM metafield_definitions WHERE store_id = ? AND owner_resource = ? AND namespace IN (${list(namespaces.length)}) AND "key" IN (${list(keys.length)})`,
      [storeId, OWNER_RESOURCE, ...namespaces, ...keys],
    );
    return rows.map(toDefinitionRow).filter((d) => wanted.has(pairKey(d)));
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
          await checkVersions(tx, this.db.provider, versions);
          // Stored rows are locked and changed in id order (new ones last), as the re-check does, so
          // concurrent transactions on PostgreSQL take their row locks in one order; their
          // updated_at is read under the lock (see lockedUpdatedAt). A statement for all overwrites
          // and one for all new values (issue 17), not one per value; every statement raw, none
          // through the ORM's query compiler.
          const existing = await readValues(tx, this.db.provider, storeId, OWNER_RESOURCE, writes, true);
          const idOf = new Map(existing.map((e) => [identity(e), e.id]));
          const updatedAtOf = new Map(existing.map((e) => [e.id, e.updatedAt]));
          const overwrites: unknown[][] = [];
          const creates: unknown[][] = [];
          // New values get ids in request order. Two sets creating the same new keys in opposite
          // orders can deadlock on the unique index on PostgreSQL: the database refuses one (P2034)
          // and the service writes it again.
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
          await updateRows(tx, this.db, 'metafields', OVERWRITE, overwrites);
          await insertRows(tx, this.db, 'metafields', CREATE_COLUMNS, creates);
          const stored = await readValues(tx, this.db.provider, storeId, OWNER_RESOURCE, writes, false);
          const written = new Map(stored.map((row) => [identity(row), row]));
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
        await checkVersions(tx, this.db.provider, versions);
        const storedAt = await lockedUpdatedAt(tx, this.db.provider, id);
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

  /** False when the value was gone already (another delete at the same moment took it). */
  async deleteValue(id: bigint): Promise<boolean> {
    return (await this.db.prisma.metafield.deleteMany({ where: { id } })).count > 0;
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
