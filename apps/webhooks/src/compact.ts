import type { Query } from './sql';

/**
 * PostgreSQL: gives the disk back after a retention pass removed much of the delivery history
 * (issue 48), online: no event's write waits for it, and a claim or a record of a row being moved
 * at most one batch's rounds (BATCH_BUDGET_MS).
 *
 * A DELETE leaves free space inside the table's files, which new rows reuse, but the files keep
 * their largest size, and VACUUM can only cut empty pages off their end. The rows a retention pass
 * keeps are the newest, so they sit at the end: after the first pass over a long history (a
 * 10,000,000-delivery history cut to its last 5,000, bench/scale) the database stayed at 9.4 GB
 * instead of 19 MB. VACUUM FULL would rewrite the table under an exclusive lock (no event written,
 * no claim, for as long as it reads the whole file). Instead, for each of webhook_deliveries and
 * webhook_attempts, when its file is four times the pages its rows take or more (laid out as its
 * newest rows are), and 8 MB over twice them:
 *
 * 1. VACUUM it, so the free space is known (its free space map) and its statistics count the rows;
 *    then count them again as they are now, front and end (rowsPastTarget: a write that committed
 *    since the count is not bloat);
 * 2. move the rows past twice the pages they need (by `ctid`, the row's place in the file) into the free
 *    space at the front: `UPDATE ... SET id = id`, which writes a new version of each row where the
 *    free space map points, and changes nothing anyone reads (statement triggers see the same rows
 *    and append nothing to the ledgers). A page's first round of updates fits its new versions on
 *    the page itself while it has room; the rounds repeat in one transaction, so the page fills with
 *    the versions it cannot give back yet and the next ones go elsewhere. Each batch of rows is one
 *    short transaction (its rounds stop after BATCH_BUDGET_MS) that takes only rows no one holds
 *    (`FOR UPDATE SKIP LOCKED`: a claim or a record under way is never waited for; one that comes
 *    to a row of the batch waits for its commit, then follows the row to its new version, as with
 *    any update);
 * 3. VACUUM again, which cuts the now empty end off the file (it takes the table's exclusive lock
 *    only while nothing waits for it, and gives it up when something does);
 * 4. rebuild each index larger than 1 MB and than the table (`REINDEX INDEX CONCURRENTLY`, which writes a
 *    new index beside the old one without holding writes): B-trees never give pages back.
 *
 * One sender at a time (a session advisory lock). A sender stopped in the middle leaves nothing
 * wrong: rows moved or not are the same rows, and an index build cut short leaves an invalid
 * `..._ccnew` copy, dropped by the next compaction. A smaller or less bloated table is left alone:
 * the steady state of a retention window (each pass removes minutes' worth of rows of 30 days, and
 * new ones fill the space) never compacts. Large bodies stored out of line
 * (TOAST, bodies of more than about 2 kB once compressed) are not moved: their table keeps its size
 * until it is vacuumed full.
 */
export interface CompactionResult {
  table: string;
  /** pages of the table's file before and after */
  pagesBefore: number;
  pagesAfter: number;
  /** rows moved towards the front */
  moved: number;
  /** indexes rebuilt */
  reindexed: string[];
}

/** Any number no other part of the platform takes as an advisory lock: one compaction at a time. */
export const COMPACTION_LOCK_KEY = 7_311_050;

export const COMPACTED_TABLES = ['webhook_deliveries', 'webhook_attempts'] as const;

/** Tables smaller than this many pages over their need (8 MB) are never compacted. */
const SLACK_PAGES = 1024;
/**
 * Rows moved per transaction, and at most as many rounds of updates as a page has room for
 * versions (291 pointers on an 8 kB page): a page holding one small row fills with its versions
 * only after many rounds, a page half full after two or three.
 */
const MOVE_BATCH = 500;
const ROUNDS = 300;
/**
 * How long one batch's rounds may go on (its rows stay locked until it commits): rows of a page
 * with room move after a few rounds, tens of milliseconds for a batch.
 */
const BATCH_BUDGET_MS = 1000;
/** Tries at moving and cutting the end off, a second apart. */
const TRUNCATE_TRIES = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Indexes rebuilt when larger than this and than their table. */
const INDEX_MIN_BYTES = 1024 * 1024;

export interface Shape {
  pages: number;
  rows: number;
  /** rows a page holds, as the newest rows are laid out (see shape) */
  rowsPerPage: number;
}

/**
 * The file's pages, its rows and how many rows a page holds. The rows: `counted`, as the last
 * VACUUM counted them (pg_class), or else as the activity statistics estimate them now (each insert
 * and delete added as its connection reports it, within seconds; a VACUUM's count replaces the sum,
 * and reports still pending then are added to it after: an estimate, only to decide whether to
 * VACUUM and count). Rows a page holds: the newest 200 rows over the pages they sit on, found by
 * primary key (no row is read whole: a body stored out of line stays where it is). Written one
 * after another they fill pages as the table's fill factor lets them; rows written into the gaps of
 * older pages count fewer a page, which only makes the compaction rarer. At most as many as full
 * pages hold of rows as wide as ANALYZE found them (pg_stats, when the table has statistics): older
 * rows much larger than the newest would otherwise make the table look several times its rows'
 * size with no room at its front (test/compaction.e2e.test.ts: 6,000 rows of 1.8 kB then 300 of
 * 200 bytes; batch after batch moved nowhere, and the file grew from 3,000 pages to 66,000).
 */
async function shape(q: Query, table: string, counted: boolean): Promise<Shape> {
  const rows = counted
    ? `(SELECT reltuples FROM pg_class WHERE oid = '${table}'::regclass)`
    : `(SELECT n_live_tup FROM pg_stat_user_tables WHERE relid = '${table}'::regclass)`;
  const [row] = await q<{ pages: bigint; rows: number; newest: bigint; newest_pages: bigint; width: number | null }>(
    `SELECT pg_relation_size('${table}') / current_setting('block_size')::bigint AS pages,
            GREATEST(${rows}, 0)::float8 AS rows, newest.n AS newest, newest.pages AS newest_pages,
            (SELECT SUM(avg_width)::float8 FROM pg_stats WHERE schemaname = current_schema() AND tablename = '${table}') AS width
     FROM (SELECT COUNT(*) AS n, COUNT(DISTINCT (ctid::text::point)[0]) AS pages
           FROM (SELECT ctid FROM ${table} ORDER BY id DESC LIMIT 200) AS r) AS newest`,
  );
  const newest = Number(row!.newest);
  const laidOut = newest > 0 ? newest / Number(row!.newest_pages) : 1;
  // A page's 8,168 bytes after its header; a row's 24-byte header and 4-byte pointer.
  const full = row!.width ? Math.max(1, Math.floor(8168 / (row!.width + 28))) : Infinity;
  return { pages: Number(row!.pages), rows: Number(row!.rows), rowsPerPage: Math.min(laidOut, full) };
}

/**
 * The page past which rows are moved: twice the pages the rows need, so the front has room for
 * every row moved; or undefined when the table is not worth it (its file less than twice that, or
 * less than 8 MB over it).
 */
export function compactionTarget({ pages, rows, rowsPerPage }: Shape): number | undefined {
  const need = Math.ceil(rows / Math.max(1, rowsPerPage));
  const target = Math.max(2 * need, 128);
  return pages >= 2 * target && pages - target >= SLACK_PAGES ? target : undefined;
}

/**
 * The rows past the page the compaction moves rows from, the target of `counted` checked against the
 * rows there now: undefined when, with them, the table is not worth compacting.
 *
 * VACUUM's count holds no row whose write had not committed when it ran, though its pages were
 * already in the file. A burst of events committed since may be most of the rows past the target:
 * counted, they fill the file they are in, and moving them would find no room at the front (each
 * round would write their new versions further on, for all its rounds). Seen in bench/webhooks
 * (2026-12-03): a look during a burst of 20,000 events into a queue of 3,000 moved the burst in
 * batches of 16-18 s, wrote 40,000 pages for 20,000 rows, and the sender delivered 46 a second for
 * minutes. So the rows are counted again, as this statement's snapshot sees them: those before the
 * target (a TID range scan of the front, at most twice the pages the rows need) and those past it.
 */
async function rowsPastTarget(q: Query, table: string, counted: Shape): Promise<{ target: number; ids: bigint[] } | undefined> {
  let target = compactionTarget(counted);
  for (let look = 0; target !== undefined && look < 2; look++) {
    const tail = `'(${target},0)'::tid`;
    // One read of the file's end finds the rows to move, and one of its front counts the rest.
    const ids = (await q<{ id: bigint }>(`SELECT id FROM ${table} WHERE ctid >= ${tail} ORDER BY id`)).map((r) => r.id);
    const [front] = await q<{ n: bigint }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ctid < ${tail}`);
    const now = compactionTarget({ ...counted, rows: Math.max(counted.rows, Number(front!.n) + ids.length) });
    // More rows than counted and a target further on: the rows past that one, read again.
    if (now === target) return { target, ids };
    target = now;
  }
  return undefined;
}

/**
 * Moves the rows past the target towards the front; how many moved, and the target, or undefined
 * when the table is not worth it after all (rowsPastTarget).
 */
async function moveTail(
  q: Query,
  table: string,
  counted: Shape,
  closing: () => boolean,
): Promise<{ moved: number; target: number; stuck: boolean } | undefined> {
  const found = await rowsPastTarget(q, table, counted);
  if (!found) return undefined;
  const { target, ids } = found;
  const tail = `'(${target},0)'::tid`;
  let stuck = false;
  for (let i = 0; i < ids.length && !stuck && !closing(); i += MOVE_BATCH) {
    const batch = ids.slice(i, i + MOVE_BATCH).join(',');
    // Integers from the table itself, spelled into the block: a DO block takes no parameters. A claim
    // or a record of a row being moved waits for the batch's commit: the rounds stop at
    // BATCH_BUDGET_MS, and the rows still past the target are the next try's.
    await q(
      `DO $compact$
       DECLARE n bigint; started timestamptz := clock_timestamp();
       BEGIN
         FOR round IN 1..${ROUNDS} LOOP
           UPDATE ${table} SET id = id
           WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE id = ANY ('{${batch}}'::bigint[]) AND ctid >= ${tail} FOR UPDATE SKIP LOCKED));
           GET DIAGNOSTICS n = ROW_COUNT;
           EXIT WHEN n = 0 OR clock_timestamp() - started > interval '${BATCH_BUDGET_MS} milliseconds';
         END LOOP;
       END
       $compact$`,
    );
    // A batch that left most of its rows at the end found no room at the front (the estimate of
    // the rows' pages was wrong): every further batch would only write versions further on.
    const [still] = await q<{ n: bigint }>(
      `SELECT COUNT(*) AS n FROM ${table} WHERE id = ANY ('{${batch}}'::bigint[]) AND ctid >= ${tail}`,
    );
    stuck = Number(still!.n) * 2 > Math.min(MOVE_BATCH, ids.length - i);
  }
  // Rows past the target still (held by a claim or a record meanwhile, or moved within the end): the next compaction's.
  const [left] = await q<{ n: bigint }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ctid >= ${tail}`);
  return { moved: Math.max(0, ids.length - Number(left!.n)), target, stuck };
}

/** Rebuilds the table's indexes much larger than it; names of those rebuilt. */
async function reindex(q: Query, table: string, closing: () => boolean): Promise<string[]> {
  // In one look: copies left by a rebuild cut short (this compaction holds the lock: none is under
  // way), and the valid indexes much larger than the table.
  const found = await q<{ name: string; leftover: boolean }>(
    `SELECT c.relname AS name, NOT i.indisvalid AS leftover FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = '${table}'::regclass
       AND CASE WHEN i.indisvalid THEN pg_relation_size(i.indexrelid) > GREATEST(${INDEX_MIN_BYTES}, pg_relation_size('${table}'))
           ELSE c.relname ~ '_ccnew[0-9]*$' END
     ORDER BY c.relname`,
  );
  for (const { name } of found.filter((index) => index.leftover)) await q(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
  const done: string[] = [];
  for (const { name } of found.filter((index) => !index.leftover)) {
    if (closing()) break;
    await q(`REINDEX INDEX CONCURRENTLY "${name}"`);
    done.push(name);
  }
  return done;
}

/**
 * Compacts each table that needs it (above); the tables compacted. `removed`: the rows of each
 * table the pass just removed. `q` runs statements on one connection of its own (VACUUM and REINDEX
 * CONCURRENTLY cannot run in a transaction). Resolves with nothing when another sender's compaction
 * holds the lock.
 */
export async function compactHistory(
  q: Query,
  removed: Partial<Record<(typeof COMPACTED_TABLES)[number], number>>,
  closing: () => boolean = () => false,
  suspects: Set<string> = new Set(),
): Promise<CompactionResult[]> {
  // The lock and, in the same look, whether the role owns the tables: VACUUM and REINDEX need the
  // tables' owner (or a superuser); for anyone else VACUUM does nothing (a warning) and rows moved
  // would be moved again at every pass, for nothing.
  const tables = COMPACTED_TABLES.map((t) => `'${t}'::regclass`).join(', ');
  const [lock] = await q<{ ok: boolean; owner: boolean | null }>(
    `SELECT pg_try_advisory_lock(${COMPACTION_LOCK_KEY}) AS ok,
            (SELECT bool_and(pg_has_role(relowner, 'USAGE')) FROM pg_class WHERE oid IN (${tables})) AS owner`,
  );
  if (!lock?.ok) return [];
  const results: CompactionResult[] = [];
  try {
    if (!lock.owner) throw new Error(`the database role does not own ${COMPACTED_TABLES.join(' and ')}: they are not compacted`);
    for (const table of COMPACTED_TABLES) {
      if (closing()) break;
      const before = await shape(q, table, false);
      // A pass that removed a quarter of the file's worth of rows, or a table the statistics see
      // bloated at this look and the one before (`suspects`: a sender stopped before it
      // compacted): VACUUM and count. The common case, a pass that removed a few rows from a table
      // about its rows' size, costs this one look. One look is not enough: a large write under way
      // has its pages in the file and its rows in no statistic yet, and a VACUUM then records the
      // table as nearly empty (its rows uncounted, its pages counted), which made the planner scan
      // the whole queue for every claim and record until the next VACUUM (bench/webhooks
      // 2026-12-03: a burst of 20,000 delivered at about 300 a second instead of 2,000).
      const removedPages = (removed[table] ?? 0) / Math.max(1, before.rowsPerPage);
      const seenBloated = compactionTarget(before) !== undefined;
      const confirmed = seenBloated && suspects.has(table);
      if (seenBloated) suspects.add(table);
      else suspects.delete(table);
      let moved = 0;
      let reindexed: string[] = [];
      let vacuumed = false;
      if (confirmed || (removedPages * 4 >= before.pages && before.pages >= SLACK_PAGES)) {
        // Frees the removed rows' space (and counts the rows, and how wide they are) before anything moves into it.
        await q(`VACUUM (ANALYZE, INDEX_CLEANUP ON) ${table}`);
        vacuumed = true;
        const counted = await shape(q, table, true);
        // The end is cut off only once nothing can still see the rows' old versions there (a
        // transaction that began before they moved), and when VACUUM gets the table's lock between
        // others' statements: a few tries, a second apart, each moving what is still past the target
        // (rows held by a claim or a record the time before).
        for (let round = 0; round < TRUNCATE_TRIES && !closing(); round++) {
          if (round > 0) await sleep(1000);
          const step = await moveTail(q, table, counted, closing);
          if (!step) break;
          moved += step.moved;
          if (step.stuck) break;
          await q(`VACUUM (INDEX_CLEANUP ON) ${table}`);
          if ((await shape(q, table, true)).pages < 2 * step.target) break;
        }
      }
      if (!closing()) reindexed = await reindex(q, table, closing);
      // Nothing done (a sender's pass most of the time): the file is what it was, without a look.
      const after = vacuumed || reindexed.length > 0 ? await shape(q, table, true) : before;
      if (moved > 0 || reindexed.length > 0 || after.pages < before.pages)
        results.push({ table, pagesBefore: before.pages, pagesAfter: after.pages, moved, reindexed });
    }
  } finally {
    await q(`SELECT pg_advisory_unlock(${COMPACTION_LOCK_KEY})`).catch(() => undefined);
  }
  return results;
}
