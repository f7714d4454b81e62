import { Injectable } from '@nestjs/common';
import {
  checkMetaobjectReferences,
  DomainError,
  IssuesError,
  makeIssue,
  REQUEST_CHECK_BUDGET,
  YIELD_EVERY_UNITS,
  type CheckMeter,
  type Issue,
  type MetaobjectReference,
} from '@platform/domain';
import { ClockService } from '../core/clock.service';
import { isConflict } from '../core/prisma-errors';
import {
  MetafieldValidators,
  namespaceAndKeyIssues,
  prefixIssues,
  storedNamespace,
  valueAccess,
  writeDeniedMessage,
  type Caller,
  type DefinitionRow,
} from './metafield-rules';
import {
  DefinitionChanged,
  MetafieldsRepository,
  type DefinitionVersion,
  type MetafieldRow,
  type PlannedWrite,
} from './metafields.repository';

/** One value a request wants written. */
export interface WriteEntry {
  /** Where its problems are reported: '' for a single value, `metafields[3].` in the bulk set. */
  prefix: string;
  ownerId: bigint;
  /** As sent (`$app:x` allowed) or as stored. */
  namespace: string;
  key: string;
  /** As sent; undefined when omitted. */
  type?: string | undefined;
  value: string;
  /** PUT without a definition: the stored type, kept when none is sent. */
  currentType?: string;
}

export interface WriteContext {
  storeId: bigint;
  /** An app (Admin API) or the merchant (merchant admin): the access table decides for each (decisions §8.7). */
  caller: Caller;
  /** The API version serving the request (decisions §2.6). */
  version: string;
}

export interface Plan {
  writes: PlannedWrite[];
  versions: DefinitionVersion[];
  /** The definition each write falls under (undefined: none), by index. */
  definitions: (DefinitionRow | undefined)[];
}

interface Checked {
  issues: Issue[];
  hidden: string | undefined;
  readOnly: string | undefined;
  plan: Plan;
}

/** Attempts when a definition changes between validation and the write (or two writers race on a new value). */
const ATTEMPTS = 3;

/** Every attempt met a concurrent change (its definition edited meanwhile): 409, nothing written. */
const writeConflict = () =>
  new DomainError(
    'WRITE_CONFLICT',
    'A metafield definition of these values changed while they were written, on every attempt; nothing was saved: send the request again',
  );

/**
 * Validation and writing of values, shared by the single-value routes and the bulk set: everything
 * is validated first, then written in one transaction, so a failure leaves nothing half-written
 * (decisions §8.9).
 */
@Injectable()
export class MetafieldWritesService {
  constructor(
    private readonly repository: MetafieldsRepository,
    private readonly validators: MetafieldValidators,
    private readonly clock: ClockService,
  ) {}

  /** Validates and writes every entry, all or nothing; results in entry order. */
  async writeAll(
    entries: WriteEntry[],
    ctx: WriteContext,
  ): Promise<{ row: MetafieldRow; created: boolean; definition: DefinitionRow | undefined }[]> {
    for (let attempt = 1; ; attempt++) {
      const plan = await this.plan(entries, ctx);
      try {
        const rows = await this.repository.writeAll(ctx.storeId, writerOf(ctx), plan.writes, plan.versions, this.clock.now());
        return rows.map((r, i) => ({ ...r, definition: plan.definitions[i] }));
      } catch (error) {
        if (!(error instanceof DefinitionChanged || isConflict(error, 'unique') || isConflict(error, 'retry'))) throw error;
        if (attempt >= ATTEMPTS) throw writeConflict();
      }
    }
  }

  /** Validates and changes one stored value (PUT). */
  async updateOne(id: bigint, entry: WriteEntry, ctx: WriteContext): Promise<{ row: MetafieldRow; definition: DefinitionRow | undefined }> {
    for (let attempt = 1; ; attempt++) {
      const plan = await this.plan([entry], ctx);
      try {
        const row = await this.repository.updateOne(id, writerOf(ctx), plan.writes[0]!, plan.versions, this.clock.now());
        return { row, definition: plan.definitions[0] };
      } catch (error) {
        if (!(error instanceof DefinitionChanged || isConflict(error, 'retry'))) throw error;
        if (attempt >= ATTEMPTS) throw writeConflict();
      }
    }
  }

  /**
   * Both validation levels for every entry (decisions §8.9, spec rules 5-6), the access matrix
   * (decisions §8.7) and metaobject references (§8.14), all problems of all entries at once.
   * Throws 404 for a value the app may not even see, 403 for one it may only read, else 422.
   */
  async plan(entries: WriteEntry[], ctx: WriteContext, earlier: Issue[] = []): Promise<Plan> {
    const checked = await this.check(entries, ctx);
    if (checked.hidden !== undefined) throw new DomainError('NOT_FOUND', checked.hidden);
    if (checked.readOnly !== undefined) throw new DomainError('ACCESS_DENIED', checked.readOnly);
    const issues = [...earlier, ...checked.issues];
    if (issues.length > 0) throw new IssuesError(sortByEntry(issues));
    return checked.plan;
  }

  private async check(entries: WriteEntry[], ctx: WriteContext): Promise<Checked> {
    const issues: Issue[] = [];
    // The merchant names values by their stored namespace; only an app has a `$app:` of its own.
    const namespaces = entries.map((e) => (ctx.caller.kind === 'app' ? storedNamespace(e.namespace, ctx.caller.appId) : e.namespace));
    const wellFormed = entries.map((e) => {
      const found = namespaceAndKeyIssues(e.namespace, e.key);
      issues.push(...prefixIssues(found, e.prefix));
      return found.length === 0;
    });
    const definitions = await this.repository.definitionsFor(
      ctx.storeId,
      entries.flatMap((e, i) => (wellFormed[i] ? [{ namespace: namespaces[i]!, key: e.key }] : [])),
    );
    const definitionOf = (namespace: string, key: string) => definitions.find((d) => d.namespace === namespace && d.key === key);

    let hidden: string | undefined;
    let readOnly: string | undefined;
    const writes: PlannedWrite[] = [];
    const matched: (DefinitionRow | undefined)[] = [];
    const references: MetaobjectReference[] = [];
    // decisions §8.11: the values of one request spend at most REQUEST_CHECK_BUDGET units together,
    // and the event loop is given back between values (checkPacer).
    const pace = checkPacer();
    for (const [i, entry] of entries.entries()) {
      const turn = pace.between();
      if (turn) await turn;
      if (!wellFormed[i]) {
        // No definition can match a malformed name, so a type sent is judged on its own: every
        // problem of the entry is reported at once (decisions §4).
        if (entry.type !== undefined && entry.type !== '') {
          const compiled = this.validators.forType(entry.type);
          if (!compiled.ok) issues.push(makeIssue(`${entry.prefix}type`, compiled.message.replace(/^type: /, '')));
        }
        continue;
      }
      const namespace = namespaces[i]!;
      const definition = definitionOf(namespace, entry.key);
      const where = entry.prefix === '' ? '' : `${entry.prefix.slice(0, -1)}: `;
      const caller = ctx.caller;
      const named = valueAccess(caller, namespace, definition, 'use_namespace');
      if (named.outcome === 'forbidden') {
        // decisions §8.2: only that app writes there. Refused by the name alone (as a definition
        // create there is), whether or not a definition exists there, so nothing leaks.
        readOnly ??= `${entry.prefix}${writeDeniedMessage(named, namespace, entry.key, definition, caller.kind)}`;
        continue;
      }
      const access = valueAccess(caller, namespace, definition, 'write_values');
      if (access.outcome === 'not_found') {
        // decisions §8.7: what the app may not see does not exist for it.
        hidden ??= `${where}Not Found`;
        continue;
      }
      if (access.outcome === 'forbidden') {
        readOnly ??= `${where}${writeDeniedMessage(access, namespace, entry.key, definition, caller.kind)}`;
        continue;
      }
      const type = this.typeOf(entry, definition, issues);
      if (type === undefined) continue;
      const compiled = definition ? this.validators.forDefinition(definition) : this.validators.forType(type);
      if (!compiled.ok) {
        issues.push(
          definition
            ? makeIssue(
                `${entry.prefix}value`,
                `cannot be checked: the definition ${namespace}.${entry.key} is invalid (${compiled.message})`,
              )
            : makeIssue(`${entry.prefix}type`, compiled.message.replace(/^type: /, '')),
        );
        continue;
      }
      const result = compiled.validator(entry.value, { version: ctx.version, meter: pace.meter });
      if (!result.ok) {
        issues.push(...prefixIssues(result.issues, entry.prefix));
        continue;
      }
      for (const ref of result.references) references.push({ ...ref, field: `${entry.prefix}${ref.field}` });
      writes.push({
        ownerId: entry.ownerId,
        namespace,
        key: entry.key,
        type,
        value: entry.value,
        definitionId: definition?.id ?? null,
        checkedRevision: definition?.rulesRevision ?? 0,
      });
      matched.push(definition);
    }

    if (references.length > 0) {
      const found = await this.repository.metaobjectDefinitions(
        ctx.storeId,
        references.map((r) => r.id),
      );
      issues.push(...checkMetaobjectReferences(references, (id) => found.get(id)));
    }
    const versions = new Map<bigint, DefinitionVersion>();
    for (const d of matched)
      if (d) versions.set(d.id, { id: d.id, rulesRevision: d.rulesRevision, type: d.type, accessAdmin: d.accessAdmin });
    return { issues, hidden, readOnly, plan: { writes, versions: [...versions.values()], definitions: matched } };
  }

  /** decisions §8.9: a definition's type wins (another one sent is refused); without one, type is required. */
  private typeOf(entry: WriteEntry, definition: DefinitionRow | undefined, issues: Issue[]): string | undefined {
    if (definition) {
      if (entry.type !== undefined && entry.type !== definition.type) {
        issues.push(makeIssue(`${entry.prefix}type`, `must be ${definition.type}, the type of its definition`));
        return undefined;
      }
      return definition.type;
    }
    const type = entry.type ?? entry.currentType;
    if (type === undefined || type === '') {
      issues.push(makeIssue(`${entry.prefix}type`, "can't be blank (a value without a definition must name its type)"));
      return undefined;
    }
    return type;
  }
}

/**
 * Paces the values of one request or re-check step (decisions §8.11, §8.12): `between()` before each
 * value gives the event loop back (setImmediate) once the values since the last time spent
 * YIELD_EVERY_UNITS, so other requests and /healthz are answered between long checks (one value
 * spends at most the domain's VALUE_CHECK_BUDGET), and refuses the rest with 422 once the values so
 * far spent `budget`.
 */
export function checkPacer(budget = REQUEST_CHECK_BUDGET, tooCostly: (budget: number) => Error = requestTooCostly) {
  const meter: CheckMeter = { spent: 0 };
  let lastYield = 0;
  return {
    meter,
    /** Whether the budget is spent (the next value may not start). */
    get exhausted() {
      return meter.spent >= budget;
    },
    /**
     * Before each value: throws once the budget is spent; else a turn of the event loop to await when
     * one is due, undefined when the value may start at once (no promise a value: the re-check
     * judges a hundred thousand values in a row).
     */
    between(): Promise<void> | undefined {
      if (meter.spent >= budget) throw tooCostly(budget);
      if (meter.spent - lastYield < YIELD_EVERY_UNITS) return undefined;
      lastYield = meter.spent;
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

function requestTooCostly(budget: number): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `metafields: are too costly to check together in one request (their checks would take more than ${budget.toLocaleString('en-US')} units of work, about 0.8 s; send fewer or smaller values per request)`,
  );
}

/** Who a written value records as its writer: the app, or null for the merchant. */
function writerOf(ctx: WriteContext): bigint | null {
  return ctx.caller.kind === 'app' ? ctx.caller.appId : null;
}

/** Prisma's P2034: a transaction failed on a write conflict or a deadlock (PostgreSQL); trying again is safe. */

/** Problems of several entries in entry order (`metafields[2]` before `metafields[10]`), each entry's in the order found. */
function sortByEntry(issues: Issue[]): Issue[] {
  const index = (field: string) => Number(/^metafields\[(\d+)\]/.exec(field)?.[1] ?? -1);
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) => index(a.issue.field) - index(b.issue.field) || a.order - b.order)
    .map((p) => p.issue);
}
