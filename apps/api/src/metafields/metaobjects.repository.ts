import { Injectable } from '@nestjs/common';
import type { Db, Metaobject, MetaobjectDefinition } from '@platform/db';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';

/** decisions §8.14: metaobject definitions and metaobjects, what definitions and values reference. */
@Injectable()
export class MetaobjectsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /** A duplicate type in the store fails on the unique index (StorageConflict 'unique'). */
  createDefinition(storeId: bigint, type: string, name: string, now: Date): Promise<MetaobjectDefinition> {
    return storage(this.db.prisma.metaobjectDefinition.create({ data: { storeId, type, name, createdAt: now, updatedAt: now } }));
  }

  findDefinition(storeId: bigint, id: bigint): Promise<MetaobjectDefinition | null> {
    return this.db.prisma.metaobjectDefinition.findFirst({ where: { id, storeId } });
  }

  /** A duplicate handle in the definition fails on the unique index (StorageConflict 'unique'). */
  createMetaobject(storeId: bigint, definitionId: bigint, handle: string, now: Date): Promise<Metaobject> {
    return storage(this.db.prisma.metaobject.create({ data: { storeId, definitionId, handle, createdAt: now, updatedAt: now } }));
  }
}
