// The raw statements of the value writes (issue 17): a bulk set's reads and writes inside its
// transaction go straight to the database, none through the ORM's query compiler (docs/performance.md).
import { parseSqliteDateTime, type Db, type Metafield, type Provider, type RowUpdate } from '@platform/db';
import type { DefinitionRow } from './metafield-rules';

export type Tx = Parameters<Parameters<Db['prisma']['$transaction']>[0]>[0];

/** `count` placeholders for a raw statement: `$k, $k+1, ...` on PostgreSQL (after `before` others), `?` on SQLite. */
export function placeholders(provider: Provider, count: number, before = 0): string {
  return Array.from({ length: count }, (_, i) => (provider === 'postgresql' ? `$${before + i + 1}` : '?')).join(',');
}

/** A definition row as Db.query returns it (integers as bigint, times as Date) in DefinitionRow's shape. */
export function toDefinitionRow(r: Record<string, unknown>): DefinitionRow {
  return {
    id: BigInt(r.id as bigint),
    appId: r.app_id === null || r.app_id === undefined ? null : BigInt(r.app_id as bigint),
    namespace: r.namespace as string,
    key: r.key as string,
    description: (r.description as string | null) ?? null,
    type: r.type as string,
    validations: r.validations as string,
    accessAdmin: (r.access_admin as string | null) ?? null,
    rulesRevision: Number(r.rules_revision),
    updatedAt: r.updated_at instanceof Date ? r.updated_at : new Date(r.updated_at as string),
  };
}

/**
 * A value's columns as Prisma names them (of the table aliased `m`), for raw reads inside a write
 * transaction. PostgreSQL types them as the ORM does (bigint, timestamp as UTC). SQLite: integers
 * and times as text, read here exactly as the ORM reads them: a raw read there turned an id past
 * 2^53 into a rounded number, and read a time stored without an offset (what DEFAULT
 * CURRENT_TIMESTAMP writes, UTC) in the process's local zone.
 */
export function valueColumns(provider: Provider): string {
  const exact = (c: string) => (provider === 'sqlite' ? `CAST(m.${c} AS TEXT)` : `m.${c}`);
  return `${exact('id')} AS "id", ${exact('store_id')} AS "storeId", m.owner_resource AS "ownerResource", ${exact('owner_id')} AS "ownerId",
  m.namespace, m."key", m."type", m."value", ${exact('definition_id')} AS "definitionId", ${exact('app_id')} AS "appId", m.valid,
  m.invalid_reasons AS "invalidReasons", m.checked_revision AS "checkedRevision", ${exact('created_at')} AS "createdAt",
  ${exact('updated_at')} AS "updatedAt"`;
}

/** A time as a raw read gives it: a Date, or SQLite's text, read as @platform/db reads it. */
function toDate(v: unknown): Date {
  return v instanceof Date ? v : (parseSqliteDateTime(v) as Date);
}

/**
 * A raw row (valueColumns) as Prisma's Metafield; the coercions hold whatever the driver hands back
 * (libsql gives an INTEGER as a number, SQLite a boolean as 0/1).
 */
export function toMetafield(r: Record<string, unknown>): Metafield {
  const id = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v : BigInt(v as number | string));
  return {
    id: id(r.id)!,
    storeId: id(r.storeId)!,
    ownerResource: r.ownerResource as string,
    ownerId: id(r.ownerId)!,
    namespace: r.namespace as string,
    key: r.key as string,
    type: r.type as string,
    value: r.value as string,
    definitionId: id(r.definitionId),
    appId: id(r.appId),
    valid: typeof r.valid === 'boolean' ? r.valid : Number(r.valid) !== 0,
    invalidReasons: r.invalidReasons as string,
    checkedRevision: Number(r.checkedRevision),
    createdAt: toDate(r.createdAt),
    updatedAt: toDate(r.updatedAt),
  };
}

/** A value's identity within its store and resource. */
export interface ValueKey {
  ownerId: bigint;
  namespace: string;
  key: string;
}

/** A value's identity as one string (owner, namespace, key): also a total order for taking locks. */
export const identity = (w: ValueKey) => `${w.ownerId}\u0000${w.namespace}\u0000${w.key}`;

/**
 * The stored values of these (owner, namespace, key) triples of a store's resource, in id order;
 * with `lock`, locked as an UPDATE locks them (PostgreSQL `FOR NO KEY UPDATE`, taken in id order,
 * each row returned as its latest committed version).
 *
 * PostgreSQL: each triple one probe of the unique index, whatever the table's statistics. With no
 * statistics yet (100,000 values written moments before), IN lists on the index's columns were
 * planned as a filter over the store's whole index range, and a join to the triples as a hash of
 * every value of the store: 10 and 80 ms a read (bench/recheck, 2026-11-26). A LATERAL subquery
 * with LIMIT 1 cannot be flattened into such a join. The locks are then taken by primary key in id
 * order, as every writer of values takes them (a value's owner, namespace and key never change, so
 * the ids found stay the triples' ones). SQLite: IN lists on the index's columns (an OR of 25
 * triples made it scan every value of the store), the exact triples picked in memory.
 */
export async function readValues(
  tx: Tx,
  provider: Provider,
  storeId: bigint,
  ownerResource: string,
  triples: ValueKey[],
  lock: boolean,
): Promise<Metafield[]> {
  const unique = [...new Map(triples.map((t) => [identity(t), t])).values()];
  if (unique.length === 0) return [];
  if (provider === 'postgresql') {
    const found = (
      await tx.$queryRawUnsafe<Record<string, unknown>[]>(
        `SELECT ${valueColumns(provider)} FROM unnest($3::bigint[], $4::text[], $5::text[]) AS w(owner_id, namespace, "key")
         CROSS JOIN LATERAL (SELECT * FROM metafields v WHERE v.store_id = $1 AND v.owner_resource = $2 AND v.owner_id = w.owner_id
           AND v.namespace = w.namespace AND v."key" = w."key" LIMIT 1) m
         ORDER BY m.id`,
        storeId,
        ownerResource,
        unique.map((t) => t.ownerId),
        unique.map((t) => t.namespace),
        unique.map((t) => t.key),
      )
    ).map(toMetafield);
    if (!lock || found.length === 0) return found;
    const locked = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT ${valueColumns(provider)} FROM metafields m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id FOR NO KEY UPDATE`,
      found.map((row) => row.id),
    );
    return locked.map(toMetafield);
  }
  // SQLite: every Prisma transaction there holds the one write lock from its BEGIN (@platform/db,
  // WRITE_LOCK_FIRST), so a plain read is a locked one.
  const distinct = <T>(pick: (t: ValueKey) => T) => [...new Set(unique.map(pick))];
  const owners = distinct((t) => t.ownerId);
  const namespaces = distinct((t) => t.namespace);
  const keys = distinct((t) => t.key);
  const list = (n: number) => Array.from({ length: n }, () => '?').join(',');
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT ${valueColumns(provider)} FROM metafields m WHERE m.store_id = ? AND m.owner_resource = ? AND m.owner_id IN (${list(owners.length)})
     AND m.namespace IN (${list(namespaces.length)}) AND m."key" IN (${list(keys.length)}) ORDER BY m.id`,
    storeId,
    ownerResource,
    ...owners,
    ...namespaces,
    ...keys,
  );
  const wanted = new Set(unique.map(identity));
  return rows.map(toMetafield).filter((row) => wanted.has(identity(row)));
}

/**
 * The value `id` locked as readValues locks (updateOne): its updated_at, undefined if it is gone.
 * Read without the lock, two writes of one value at once on PostgreSQL (READ COMMITTED) could both
 * read the same stored time and both write the same next one (nextUpdatedAt); under it, the second
 * reads what the first wrote.
 */
export async function lockedUpdatedAt(tx: Tx, provider: Provider, id: bigint): Promise<Date | undefined> {
  const lock = provider === 'postgresql' ? ' FOR NO KEY UPDATE' : '';
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT ${valueColumns(provider)} FROM metafields m WHERE m.id = ${placeholders(provider, 1)}${lock}`,
    id,
  );
  return rows[0] === undefined ? undefined : toMetafield(rows[0]).updatedAt;
}

/** A new value by the bulk set, one multi-row INSERT for all (the ORM's createMany cost about 8 ms a request of 25). */
export const CREATE_COLUMNS = [
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
export const OVERWRITE: RowUpdate = {
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
