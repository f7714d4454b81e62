import { Injectable } from '@nestjs/common';
import { updateRows, type Db, type MetafieldRecheck, type RowUpdate } from '@platform/db';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';
import type { DefinitionRow } from './metafield-rules';
import { DEFINITION_COLUMNS, OWNER_RESOURCE } from './metafields.repository';

/** A value as the re-check reads it. */
export interface RecheckRow {
  id: bigint;
  type: string;
  value: string;
}

/** The re-check's judgement of one value, written only if the value is still the one judged. */
export interface Verdict extends RecheckRow {
  valid: boolean;
  reasons: readonly string[];
}

/**
 * A verdict is written only where the value is still the one judged: same id, type and text (the
 * fence), so a value rewritten meanwhile keeps the verdict its writer gave it.
 */
const VERDICT_UPDATE: RowUpdate = {
  match: ['id', 'type', 'value'],
  set: ['valid', 'invalid_reasons', 'checked_revision'],
  pgTypes: { id: 'bigint', type: 'text', value: 'text', valid: 'boolean', invalid_reasons: 'text', checked_revision: 'integer' },
};

/** The job's claim was taken over (it expired) or the job was superseded: stop, write nothing. */
export class LeaseLost extends Error {
  constructor() {
    super('the re-check job is no longer ours');
  }
}

/**
 * decisions §8.12: the re-check jobs (`metafield_rechecks`) and the values they judge. A claim is
 * `lease_until`: set by compare-and-set on its previous value, so two workers (processes) never
 * hold one job; every later write is fenced on the exact lease, so a worker whose claim expired and
 * was taken over writes nothing more. Plain conditional updates: the same on SQLite and PostgreSQL.
 * Lease times are real time (the worker passes Date.now()), never the service clock.
 *
 * Values belong to a definition only when its owner_resource is theirs (decisions §8.1, §8.9):
 * values live on products, so a definition of variants, orders, ... never adopts or scans any.
 */
@Injectable()
export class RecheckRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * Claims the oldest pending job that nobody holds: never leased, lease expired, or a lease
   * further ahead than any we grant (a process whose real-time clock was wrong or jumped back).
   */
  async claim(now: Date, leaseMs: number): Promise<{ job: MetafieldRecheck; lease: Date } | undefined> {
    const implausible = new Date(now.getTime() + 2 * leaseMs);
    const candidates = await this.db.prisma.metafieldRecheck.findMany({
      where: { status: 'pending', OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }, { leaseUntil: { gt: implausible } }] },
      orderBy: { id: 'asc' },
      take: 5,
    });
    for (const job of candidates) {
      let lease = new Date(now.getTime() + leaseMs);
      if (job.leaseUntil !== null && job.leaseUntil.getTime() === lease.getTime()) lease = new Date(lease.getTime() + 1);
      const taken = await this.db.prisma.metafieldRecheck.updateMany({
        where: { id: job.id, status: 'pending', leaseUntil: job.leaseUntil },
        data: { leaseUntil: lease },
      });
      if (taken.count === 1) return { job, lease };
    }
    return undefined;
  }

  /** Whether a newer revision of the same definition is waiting: then this job is superseded. */
  async newerPending(job: MetafieldRecheck): Promise<boolean> {
    const newer = await this.db.prisma.metafieldRecheck.count({
      where: { definitionId: job.definitionId, status: 'pending', revision: { gt: job.revision } },
    });
    return newer > 0;
  }

  /** Older pending jobs of the definition are superseded by this one (a worker holding one is fenced out). */
  async supersedeOlder(job: MetafieldRecheck): Promise<void> {
    await this.db.prisma.metafieldRecheck.updateMany({
      where: { definitionId: job.definitionId, status: 'pending', revision: { lt: job.revision } },
      data: { status: 'done', leaseUntil: null },
    });
  }

  definition(id: bigint): Promise<(DefinitionRow & { storeId: bigint; ownerResource: string }) | null> {
    return this.db.prisma.metafieldDefinition.findUnique({
      where: { id },
      select: { ...DEFINITION_COLUMNS, storeId: true, ownerResource: true },
    });
  }

  /**
   * Values of the definition's (owner_resource, namespace, key) written before it existed (or after
   * an earlier one was deleted) carry no definition id; they fall under it now, so the scan by
   * definition id sees them. `updated_at` is left alone: the values did not change.
   */
  async adoptOrphans(definition: DefinitionRow & { storeId: bigint; ownerResource: string }): Promise<void> {
    if (definition.ownerResource !== OWNER_RESOURCE) return;
    await this.db.prisma.$executeRaw`UPDATE metafields SET definition_id = ${definition.id}
      WHERE store_id = ${definition.storeId} AND owner_resource = ${definition.ownerResource}
      AND namespace = ${definition.namespace} AND "key" = ${definition.key} AND definition_id IS NULL`;
  }

  /**
   * The next batch after `cursor`, by id on the (definition_id, id) index. Only values of the
   * definition's owner_resource: a value linked to a definition of another resource (never written
   * so now) is not judged by it.
   */
  batch(definition: { id: bigint; ownerResource: string }, cursor: bigint, size: number): Promise<RecheckRow[]> {
    // Straight to the driver (a statement prepared once): Prisma's row handling was a large part of
    // a re-check's time on SQLite (docs/performance.md).
    return this.db.query<RecheckRow>(
      `SELECT id, type, value FROM metafields WHERE definition_id = ? AND owner_resource = ? AND id > ? ORDER BY id LIMIT ?`,
      [definition.id, definition.ownerResource, cursor, size],
    );
  }

  /**
   * One batch's verdicts and the job's progress in one transaction, the verdicts in one multi-row
   * statement (updateRows) rather than one per value: the cursor moves only with the verdicts, so a restart resumes after the last batch written. A value changed since it was read
   * is skipped (its writer checked it against the newest rules already). `updated_at` is not
   * written: a verdict is no change of the value, and a value rewritten with the same text since
   * it was read keeps the time of that write.
   */
  async commitBatch(jobId: bigint, lease: Date, nextLease: Date, cursor: bigint, revision: number, verdicts: Verdict[]): Promise<void> {
    await storage(
      this.db.prisma.$transaction(
        async (tx) => {
          const fenced = await tx.metafieldRecheck.updateMany({
            where: { id: jobId, status: 'pending', leaseUntil: lease },
            data: { cursor, leaseUntil: nextLease },
          });
          if (fenced.count !== 1) throw new LeaseLost();
          // One multi-row statement for the batch (issue 17), rows in id order as every writer of
          // values locks them (no deadlock between the re-check and a bulk set on PostgreSQL).
          const rows = [...verdicts]
            .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
            .map((v) => [v.id, v.type, v.value, v.valid, JSON.stringify(v.reasons), revision]);
          await updateRows(tx, this.db, 'metafields', VERDICT_UPDATE, rows);
        },
        { timeout: 60_000, maxWait: 30_000 },
      ),
    );
  }

  /** Marks the job done (fenced on the lease); false when it was no longer ours. */
  async finish(jobId: bigint, lease: Date | null): Promise<boolean> {
    const done = await this.db.prisma.metafieldRecheck.updateMany({
      where: { id: jobId, status: 'pending', leaseUntil: lease },
      data: { status: 'done', leaseUntil: null },
    });
    return done.count === 1;
  }

  /** Gives the claim back (clean shutdown, or a pass that stopped early) so another worker takes over at once. */
  async release(jobId: bigint, lease: Date): Promise<void> {
    await this.db.prisma.metafieldRecheck.updateMany({
      where: { id: jobId, status: 'pending', leaseUntil: lease },
      data: { leaseUntil: null },
    });
  }
}
