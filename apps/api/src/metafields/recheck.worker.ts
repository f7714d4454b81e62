import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { checkMetaobjectReferences, REQUEST_CHECK_BUDGET, RULES_ONLY, type Issue, type MetaobjectReference } from '@platform/domain';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { MetafieldValidators, type Compiled, type DefinitionRow } from './metafield-rules';
import { isConflict } from '../core/prisma-errors';
import { checkPacer } from './metafield-writes.service';
import { MetafieldsRepository } from './metafields.repository';
import { LeaseLost, RecheckRepository, type RecheckRow, type Verdict } from './recheck.repository';

export type RecheckSettings = Config['metafieldRecheck'];

/**
 * Text one batch may read (and its transaction compare and write back), about 2 MB: reading values
 * is synchronous work on the event loop too (200 values of 64 KB, 13 MB, held it for some 150 ms).
 * A job's first batch reads at most BATCH_MAX_BYTES / 128 KB (the largest value) rows; later ones as
 * many as the average size of the values before them allows, up to the batch size.
 */
export const BATCH_MAX_BYTES = 2 * 1024 * 1024;
const FIRST_BATCH_ROWS = BATCH_MAX_BYTES / (128 * 1024);

/** The reasons of a valid value (one list for all of them). */
const NO_REASONS: readonly string[] = Object.freeze([]);

/** The next batch's size: as many values as fit BATCH_MAX_BYTES at the average size of the last ones. */
function nextBatchSize(rows: readonly RecheckRow[], batchSize: number): number {
  let chars = 0;
  for (const row of rows) chars += row.value.length;
  const average = Math.max(1, chars / Math.max(rows.length, 1));
  return Math.max(1, Math.min(batchSize, Math.floor(BATCH_MAX_BYTES / average)));
}

/** What one pass did: nothing to claim, a job finished, or a job left pending (stopped early). */
export type PassResult = 'idle' | 'done' | 'paused';

/**
 * decisions §8.12, spec rule 7: after a definition's validations change, its existing values are
 * re-checked in the background, inside the API process. Jobs (`metafield_rechecks`, written by the
 * definition update in its own transaction) are claimed with a lease, scanned in batches by id, each
 * batch's verdicts written with the job's cursor, so a restarted process resumes where the last one
 * stopped. The request that changed the definition never waits for it.
 *
 * Leases are measured in real time (Date.now()), not on the service clock: they are about whether a
 * process is still alive, and the manual clock of tests (decisions §10) stands still between moves.
 */
@Injectable()
export class MetafieldRecheckWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('metafield-recheck');
  readonly settings: RecheckSettings;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly running = new Set<Promise<PassResult>>();
  /** Work units one step (one batch's transaction) may spend judging values: the domain's REQUEST_CHECK_BUDGET. */
  stepBudget = REQUEST_CHECK_BUDGET;

  constructor(
    private readonly jobs: RecheckRepository,
    private readonly values: MetafieldsRepository,
    private readonly validators: MetafieldValidators,
    @InjectConfig() config: Config,
  ) {
    this.settings = config.metafieldRecheck;
  }

  onModuleInit(): void {
    if (this.settings.intervalMs > 0) this.schedule(this.settings.intervalMs);
  }

  /** Clean shutdown: no new pass starts; a running one stops after its batch and gives its claim back. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.running]);
  }

  /**
   * One pass: claims one job and works it to the end (or `maxBatches` batches, then gives the claim
   * back). Polling calls it; tests may too.
   */
  runOnce(options: { maxBatches?: number } = {}): Promise<PassResult> {
    if (this.closing) return Promise.resolve('idle');
    const pass = this.pass(options.maxBatches ?? Number.POSITIVE_INFINITY);
    this.running.add(pass);
    void pass.finally(() => this.running.delete(pass)).catch(() => undefined);
    return pass;
  }

  /** Runs passes until no job is left (for tests and tools). */
  async drain(): Promise<void> {
    while ((await this.runOnce()) !== 'idle') {
      if (this.closing) return;
    }
  }

  private schedule(delayMs: number): void {
    if (this.closing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runOnce().then(
        (result) => this.schedule(result === 'idle' ? this.settings.intervalMs : 0),
        (error: unknown) => {
          if (!this.closing) this.logger.warn(`re-check pass failed: ${(error as Error).message}`);
          this.schedule(this.settings.intervalMs);
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  private async pass(maxBatches: number): Promise<PassResult> {
    const claimed = await this.jobs.claim(new Date(), this.settings.leaseMs);
    if (!claimed) return 'idle';
    const { job } = claimed;
    let lease = claimed.lease;
    try {
      if (await this.jobs.newerPending(job)) {
        await this.jobs.finish(job.id, lease);
        return 'done';
      }
      await this.jobs.supersedeOlder(job);
      const definition = await this.jobs.definition(job.definitionId);
      if (!definition || definition.storeId !== job.storeId) {
        // Deleted since: its values have no rules now.
        await this.jobs.finish(job.id, lease);
        return 'done';
      }
      if (job.cursor === 0n) await this.jobs.adoptOrphans(definition);
      const compiled = this.validators.forDefinition(definition);
      let cursor = job.cursor;
      let size = Math.min(this.settings.batchSize, FIRST_BATCH_ROWS);
      for (let batches = 0; batches < maxBatches && !this.closing; batches++) {
        const rows = await this.jobs.batch(definition, cursor, size);
        if (rows.length === 0) {
          await this.jobs.finish(job.id, lease);
          return 'done';
        }
        // A step judges the batch's values up to the step's work budget; the rest are the next step's.
        const { verdicts, through } = await this.judge(definition, compiled, rows);
        const next = new Date(Date.now() + this.settings.leaseMs);
        cursor = through;
        size = nextBatchSize(rows, this.settings.batchSize);
        await this.jobs.commitBatch(job.id, lease, next, cursor, definition.rulesRevision, verdicts);
        lease = next;
      }
      await this.jobs.release(job.id, lease);
      return 'paused';
    } catch (error) {
      // An unexpected failure keeps the claim: it expires after leaseMs and the job is retried then,
      // while other jobs go on (a job that keeps failing does not hold up the queue).
      if (error instanceof LeaseLost) return 'paused';
      if (isConflict(error, 'retry')) {
        // A request changed the same rows at the same time (PostgreSQL): the batch is simply retried.
        await this.jobs.release(job.id, lease).catch(() => undefined);
        return 'paused';
      }
      throw error;
    }
  }

  /**
   * Both validation levels against the definition's current rules, references looked up once per
   * batch. One step spends at most the domain's REQUEST_CHECK_BUDGET (and one value's budget more),
   * giving the event loop back between values (decisions §8.12, issue 8): a step that runs out
   * judges the values so far, and `through` (the new cursor) is the last of them.
   */
  private async judge(
    definition: DefinitionRow & { storeId: bigint },
    compiled: Compiled,
    batch: RecheckRow[],
  ): Promise<{ verdicts: Verdict[]; through: bigint }> {
    if (!compiled.ok) {
      return {
        verdicts: batch.map((row) => ({ ...row, valid: false, reasons: [`definition: is invalid (${compiled.message})`] })),
        through: batch[batch.length - 1]!.id,
      };
    }
    const issues = new Map<bigint, Issue[]>();
    const references: (MetaobjectReference & { row: bigint })[] = [];
    const unjudged = new Set<bigint>();
    const pace = checkPacer(this.stepBudget);
    // The definition's rules alone: emptiness is the writing version's rule (decisions §2.6).
    const ctx = { ...RULES_ONLY, meter: pace.meter };
    const rows: RecheckRow[] = [];
    for (const row of batch) {
      // The first value of a step always runs, so every step moves the cursor. (Past the first,
      // `exhausted` stops the step before between() would refuse the value.)
      if (rows.length > 0 && pace.exhausted) break;
      const turn = pace.between();
      if (turn) await turn;
      rows.push(row);
      let result;
      try {
        result = compiled.validator(row.value, ctx);
      } catch (error) {
        // A bug in judging one value must not stop the job for every other value of the definition:
        // this one keeps its verdict, the rest are judged.
        this.logger.error(`re-check of metafield ${row.id.toString()} failed: ${(error as Error).message}`);
        unjudged.add(row.id);
        continue;
      }
      if (!result.ok) issues.set(row.id, result.issues);
      else for (const ref of result.references) references.push({ ...ref, row: row.id });
    }
    if (references.length > 0) {
      const found = await this.values.metaobjectDefinitions(
        definition.storeId,
        references.map((r) => r.id),
      );
      for (const ref of references) {
        const missing = checkMetaobjectReferences([ref], (id) => found.get(id));
        if (missing.length > 0) issues.set(ref.row, [...(issues.get(ref.row) ?? []), ...missing]);
      }
    }
    const verdicts: Verdict[] = [];
    for (const row of rows) {
      if (unjudged.size > 0 && unjudged.has(row.id)) continue;
      const found = issues.get(row.id);
      verdicts.push({
        id: row.id,
        type: row.type,
        value: row.value,
        valid: found === undefined || found.length === 0,
        reasons: found === undefined ? NO_REASONS : found.map((i) => i.message),
      });
    }
    return { verdicts, through: rows[rows.length - 1]!.id };
  }
}
