-- Hand-written (docs/webhooks-sender.md, "PostgreSQL: claims that touch no index"). A claim sets a
-- delivery's lease_owner, lease_until and lease_host. When none of those is indexed and the row's
-- page has room for its new version, PostgreSQL writes the new version without a single index entry
-- (a HOT update). With lease_until indexed (the live claims' index, and the claim index's last
-- column), each claim wrote an entry into every index of the table: about 45 us of the
-- database's CPU a delivery, of about 165 (bench/webhooks/ab.mjs, 2026-11-27).
--
-- So here, and only here (SQLite updates only the indexes whose columns change):
--   * the claim index ends at id (the lease is read on the row: the rows a claim steps over at the
--     head of a subscription's queue are the few held or in flight),
--   * webhook_deliveries keeps half of each page free (fill factor 50, new pages only), the room a
--     claimed row's new version needs beside it,
--   * the live claims are counted in webhook_lease_counts, a ledger: statement triggers on every
--     INSERT, UPDATE and DELETE of webhook_deliveries append, per claim (its unique owner),
--     subscription, receiving host and lease_until, +1 for each lease that names a host after the
--     statement and -1 for each that named one before (a row whose lease did not change nets 0 and
--     appends nothing). A TRUNCATE of webhook_deliveries empties it. The triggers only append: no
--     statement ever waits for a row of the ledger, so the ledger adds no lock between a claim and
--     a record. The in-flight count of a host, app or subscription is the sum of its rows whose
--     lease_until is live. Claims (one at a time, under their advisory lock) fold the ledger: the
--     groups appended to since are replaced by one row each with their sum, and the groups expired
--     an hour ago go (FOLD_COUNTS in apps/webhooks/src/claim.ts). Its dead rows are vacuumed by the
--     senders beside webhook_deliveries, and by autovacuum after every 1,000.
-- The models keep declaring the two indexes as before (Prisma schemas have no partial indexes
-- either, migration 20261126143000_partial_delivery_indexes).
--
-- One DO statement, so one transaction: the migration runner (Prisma's PostgreSQL adapter) sends a
-- script one semicolon-separated piece at a time, each committing on its own, and a sender claiming
-- between the ledger's seed and its triggers would go uncounted. The body is a U& string constant
-- that spells each semicolon \003B and doubles each quote. It locks webhook_deliveries first, so no
-- lease moves between the seed and the triggers.

DO U&'
BEGIN
LOCK TABLE "webhook_deliveries" IN ACCESS EXCLUSIVE MODE\003B

DROP INDEX "webhook_deliveries_lease_until_idx"\003B
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx"\003B
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id") WHERE "status" = ''pending''\003B
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50)\003B

CREATE TABLE "webhook_lease_counts" (
    "id" BIGSERIAL NOT NULL,
    "owner" TEXT NOT NULL,
    "subscription_id" BIGINT NOT NULL,
    "host" TEXT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "lease_until" TIMESTAMP(3) NOT NULL,
    "n" INTEGER NOT NULL,
    CONSTRAINT "webhook_lease_counts_pkey" PRIMARY KEY ("id")
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)\003B

INSERT INTO "webhook_lease_counts" ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
SELECT "lease_owner", "subscription_id", "lease_host", MIN("app_id"), "lease_until", COUNT(*)::int
FROM "webhook_deliveries"
WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
GROUP BY "lease_owner", "subscription_id", "lease_host", "lease_until"\003B

CREATE FUNCTION "webhook_lease_counts_on_update"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_lease_counts" ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
  SELECT "owner", "subscription_id", "host", MIN("app_id"), "lease_until", SUM("n")::int
  FROM (
    SELECT "lease_owner" AS "owner", "subscription_id", "lease_host" AS "host", "app_id", "lease_until", 1 AS "n"
    FROM "new_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
    UNION ALL
    SELECT "lease_owner", "subscription_id", "lease_host", "app_id", "lease_until", -1
    FROM "old_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
  ) AS "changes"
  GROUP BY "owner", "subscription_id", "host", "lease_until"
  HAVING SUM("n") <> 0\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_lease_counts_on_insert"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_lease_counts" ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
  SELECT "lease_owner", "subscription_id", "lease_host", MIN("app_id"), "lease_until", COUNT(*)::int
  FROM "new_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
  GROUP BY "lease_owner", "subscription_id", "lease_host", "lease_until"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_lease_counts_on_delete"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_lease_counts" ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
  SELECT "lease_owner", "subscription_id", "lease_host", MIN("app_id"), "lease_until", -COUNT(*)::int
  FROM "old_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
  GROUP BY "lease_owner", "subscription_id", "lease_host", "lease_until"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_lease_counts_on_truncate"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "webhook_lease_counts"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE TRIGGER "webhook_lease_counts_update" AFTER UPDATE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_update"()\003B

CREATE TRIGGER "webhook_lease_counts_insert" AFTER INSERT ON "webhook_deliveries"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_insert"()\003B

CREATE TRIGGER "webhook_lease_counts_delete" AFTER DELETE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_delete"()\003B

CREATE TRIGGER "webhook_lease_counts_truncate" AFTER TRUNCATE ON "webhook_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_truncate"()\003B

END
';
