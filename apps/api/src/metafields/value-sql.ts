// The raw statements of the value writes (issue 17): a bulk set's reads and writes inside its
// transaction go straight to the database, none through the ORM's query compiler, which was about a
// third of a request's CPU. Prisma's raw queries type the columns as the ORM does on both databases.
import { type Db, type Metafield, type Provider, type RowUpdate } from '@platform/db';
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

/** A value's columns as Prisma names them, for raw reads inside a write transaction. */
export const VALUE_COLUMNS = `id, store_id AS "storeId", owner_resource AS "ownerResource", owner_id AS "ownerId", namespace, "key", "type",
  "value", definition_id AS "definitionId", app_id AS "appId", valid, invalid_reasons AS "invalidReasons",
  checked_revision AS "checkedRevision", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * A raw row as Prisma's Metafield. Prisma's raw queries already type the columns as the ORM does
 * on both databases (bigint ids, Date times, boolean, number); the coercions keep that true
 * whatever the driver hands back.
 */
export function toMetafield(r: Record<string, unknown>): Metafield {
  const id = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v : BigInt(v as number | string));
  const date = (v: unknown) => (v instanceof Date ? v : new Date(v as string));
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
    createdAt: date(r.createdAt),
    updatedAt: date(r.updatedAt),
  };
}

/** Which values a write may touch: the store's product values at these owners, namespaces and keys (a superset of the wanted triples). */
export interface Keyed {
  storeId: bigint;
  ownerResource: string;
  ownerIds: bigint[];
  namespaces: string[];
  keys: string[];
}

/** The WHERE of a Keyed read and its parameters (IN lists on the unique index's columns). */
export function keyedWhere(provider: Provider, k: Keyed): { where: string; params: unknown[] } {
  const params: unknown[] = [k.storeId, k.ownerResource, ...k.ownerIds, ...k.namespaces, ...k.keys];
  let n = 2;
  const list = (count: number) => {
    const text = placeholders(provider, count, n);
    n += count;
    return text;
  };
  const [p1, p2] = provider === 'postgresql' ? ['$1', '$2'] : ['?', '?'];
  const where =
    `store_id = ${p1} AND owner_resource = ${p2} AND owner_id IN (${list(k.ownerIds.length)})` +
    ` AND namespace IN (${list(k.namespaces.length)}) AND "key" IN (${list(k.keys.length)})`;
  return { where, params };
}

/**
 * Locks the values a write may touch and reads them, one statement (issue 17). PostgreSQL: `FOR NO
 * KEY UPDATE` (the lock an UPDATE takes) under `ORDER BY id`, which takes the row locks in id order
 * and returns each row as its latest committed version. SQLite: a plain read, since every Prisma
 * transaction there holds the one write lock from its BEGIN (@platform/db, WRITE_LOCK_FIRST).
 * Read without the lock, two writes of one value at once on PostgreSQL (READ COMMITTED) could both
 * read the same stored time and both write the same next one (nextUpdatedAt); under it, the second
 * reads what the first wrote.
 */
export async function lockValues(
  tx: Tx,
  provider: Provider,
  k: Keyed,
): Promise<{ id: bigint; ownerId: bigint; namespace: string; key: string; updatedAt: Date }[]> {
  const { where, params } = keyedWhere(provider, k);
  const lock = provider === 'postgresql' ? ' FOR NO KEY UPDATE' : '';
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT ${VALUE_COLUMNS} FROM metafields WHERE ${where} ORDER BY id${lock}`,
    ...params,
  );
  return rows.map(toMetafield);
}

/** The value `id` locked as lockValues locks (updateOne): its updated_at, undefined if it is gone. */
export async function lockedUpdatedAt(tx: Tx, provider: Provider, id: bigint): Promise<Date | undefined> {
  const lock = provider === 'postgresql' ? ' FOR NO KEY UPDATE' : '';
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT ${VALUE_COLUMNS} FROM metafields WHERE id = ${placeholders(provider, 1)}${lock}`,
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
