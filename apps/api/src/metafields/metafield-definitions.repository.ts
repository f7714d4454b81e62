import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { nextUpdatedAt, type NormalizedRule } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';
import type { DefinitionRow } from './metafield-definition-view';

export interface DefinitionData {
  storeId: bigint;
  /** The creating app; null for a definition the merchant made in the merchant admin. */
  appId: bigint | null;
  ownerResource: string;
  /** Stored form (decisions §8.2). */
  namespace: string;
  key: string;
  name: string;
  description: string | null;
  type: string;
  validations: readonly NormalizedRule[];
  accessAdmin: string | null;
}

export interface DefinitionChanges {
  name: string;
  description: string | null;
  validations: readonly NormalizedRule[];
  accessAdmin: string | null;
  /** The rules differ from the stored ones: bump rulesRevision and queue a re-check (decisions §8.12). */
  validationsChanged: boolean;
}

export interface DefinitionPageQuery {
  storeId: bigint;
  direction: 'next' | 'prev';
  /** Exclusive: rows after this id (next) or before it (prev). */
  boundary: bigint;
  /** Exclusive lower bound of the whole listing (since_id). */
  sinceId: bigint;
  take: number;
  ownerResource?: string;
  namespace?: string;
}

@Injectable()
export class MetafieldDefinitionsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  findById(storeId: bigint, id: bigint): Promise<DefinitionRow | null> {
    return this.db.prisma.metafieldDefinition.findFirst({ where: { id, storeId } });
  }

  findByKey(storeId: bigint, ownerResource: string, namespace: string, key: string): Promise<DefinitionRow | null> {
    return this.db.prisma.metafieldDefinition.findUnique({
      where: { storeId_ownerResource_namespace_key: { storeId, ownerResource, namespace, key } },
    });
  }

  /** Keyset page on (store_id, id), nearest to the boundary first. */
  page(q: DefinitionPageQuery): Promise<DefinitionRow[]> {
    const next = q.direction === 'next';
    return this.db.prisma.metafieldDefinition.findMany({
      where: {
        storeId: q.storeId,
        id: next ? { gt: q.boundary } : { lt: q.boundary, gt: q.sinceId },
        ...(q.ownerResource !== undefined ? { ownerResource: q.ownerResource } : {}),
        ...(q.namespace !== undefined ? { namespace: q.namespace } : {}),
      },
      orderBy: { id: next ? 'asc' : 'desc' },
      take: q.take,
    });
  }

  /** The ids among `ids` that name a metaobject definition of the store (decisions §8.14). */
  async existingMetaobjectDefinitions(storeId: bigint, ids: readonly bigint[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.prisma.metaobjectDefinition.findMany({
      where: { storeId, id: { in: [...ids] } },
      select: { id: true },
    });
    return new Set(rows.map((r) => r.id.toString()));
  }

  /**
   * One transaction: the definition, and the values already written under its (owner_resource,
   * namespace, key) without a definition now belong to it and are queued for a check against it.
   * A duplicate (store, owner_resource, namespace, key) fails on the unique index (StorageConflict 'unique').
   * Adopted values keep their `updated_at`: only their definition changed, not they.
   */
  create(data: DefinitionData, now: Date): Promise<DefinitionRow> {
    return storage(
      this.db.prisma.$transaction(async (tx) => {
        const row = await tx.metafieldDefinition.create({
          data: {
            storeId: data.storeId,
            appId: data.appId,
            ownerResource: data.ownerResource,
            namespace: data.namespace,
            key: data.key,
            name: data.name,
            description: data.description ?? null,
            type: data.type,
            validations: JSON.stringify(data.validations),
            accessAdmin: data.accessAdmin,
            createdAt: now,
            updatedAt: now,
          },
        });
        // checkedRevision -1: never checked against this definition, whatever its rulesRevision. The
        // adopted values keep their updated_at: they did not change.
        const adopted = await tx.$executeRaw`UPDATE metafields SET definition_id = ${row.id}, checked_revision = -1
        WHERE store_id = ${data.storeId} AND owner_resource = ${data.ownerResource}
        AND namespace = ${data.namespace} AND "key" = ${data.key} AND definition_id IS NULL`;
        if (adopted > 0) await this.queueRecheck(tx, row, now);
        return row;
      }),
    );
  }

  /**
   * One transaction: the changes, and when the rules changed a new rulesRevision and its re-check
   * row. `updated_at` always moves to a later rendered second (nextUpdatedAt), even when the clock
   * has not (spec: "updated_at refreshed"). It is read under the row's lock, taken first by an
   * update that changes nothing (plain SQL, the same on SQLite and PostgreSQL): without it, two
   * updates at once on PostgreSQL (READ COMMITTED) could both read the same stored time and write
   * the same next one. So two updates at once get two different, increasing times.
   */
  update(row: DefinitionRow, changesOf: (current: DefinitionRow) => DefinitionChanges, now: Date): Promise<DefinitionRow | null> {
    return this.db.prisma.$transaction(async (tx) => {
      const locked = await tx.$executeRaw`UPDATE metafield_definitions SET rules_revision = rules_revision WHERE id = ${row.id}`;
      if (locked === 0) return null;
      // The changes are judged on the row as it is under the lock (`changesOf` may throw to refuse),
      // so an update at the same time is never undone and a rules change is never missed.
      const current = await tx.metafieldDefinition.findUniqueOrThrow({ where: { id: row.id } });
      const changes = changesOf(current);
      const updated = await tx.metafieldDefinition.update({
        where: { id: row.id },
        data: {
          name: changes.name,
          description: changes.description ?? null,
          validations: JSON.stringify(changes.validations),
          accessAdmin: changes.accessAdmin,
          updatedAt: nextUpdatedAt(current.updatedAt, now),
          ...(changes.validationsChanged ? { rulesRevision: { increment: 1 } } : {}),
        },
      });
      if (changes.validationsChanged) await this.queueRecheck(tx, updated, now);
      return updated;
    });
  }

  /**
   * One transaction (decisions §8.4): the definition goes; its values go too, or stay without a
   * definition (no rules, so no invalid verdict either); its pending re-checks are closed.
   * Only values of the definition's owner_resource are its values (decisions §8.1, §8.9); a value
   * of another resource linked to it by mistake is released, never deleted with it. Released values
   * keep their `updated_at`: they did not change.
   * False when the definition was already gone.
   */
  delete(row: Pick<DefinitionRow, 'id' | 'storeId' | 'ownerResource'>, deleteValues: boolean, now: Date): Promise<boolean> {
    const { id, storeId } = row;
    return this.db.prisma.$transaction(async (tx) => {
      const gone = await tx.metafieldDefinition.deleteMany({ where: { id, storeId } });
      if (gone.count === 0) return false;
      if (deleteValues) await tx.metafield.deleteMany({ where: { storeId, definitionId: id, ownerResource: row.ownerResource } });
      await tx.$executeRaw`UPDATE metafields SET definition_id = NULL, valid = TRUE, invalid_reasons = '[]', checked_revision = 0
        WHERE store_id = ${storeId} AND definition_id = ${id}`;
      await tx.metafieldRecheck.updateMany({
        where: { definitionId: id, status: 'pending' },
        data: { status: 'done', leaseUntil: null, updatedAt: now },
      });
      return true;
    });
  }

  private async queueRecheck(tx: Tx, row: DefinitionRow, now: Date): Promise<void> {
    await tx.metafieldRecheck.create({
      data: { storeId: row.storeId, definitionId: row.id, revision: row.rulesRevision, status: 'pending', createdAt: now, updatedAt: now },
    });
  }
}

type Tx = Parameters<Parameters<Db['prisma']['$transaction']>[0]>[0];
