-- Hand-written (issue 48, docs/webhooks-sender.md, "Counts by status"). /metrics showed deliveries
-- by status with a COUNT(*) over the whole of webhook_deliveries on every scrape, a history that
-- grows with every event. The counts are kept here instead, by the database itself, so they stay
-- right whatever code writes the table: the senders and the API of this release and of the one
-- before it during a rolling upgrade (whose code knows nothing of them), a purge by hand.
--
-- A ledger, as webhook_lease_counts (migration 20261127234500_lease_counts): statement triggers on
-- every INSERT, UPDATE and DELETE of webhook_deliveries append, per status, how many rows the
-- statement added to it and took from it (a statement that moves no status appends nothing). The
-- count of a status is the sum of its rows. The triggers only append, so no statement ever waits for
-- another on a row of the ledger: a single counter row per status would be locked by every
-- transaction that writes an event, from its write to its commit, and would serialise them. The
-- senders fold the ledger (many rows into one per status) every few seconds, and a TRUNCATE of
-- webhook_deliveries empties it.
--
-- The first statement (one DO block, one transaction: the migration runner may send a script one
-- semicolon-separated piece at a time, each semicolon of the body is spelled \003B and each quote
-- doubled) makes the ledger and its triggers. The second seeds it with the rows already there, as
-- their count minus what the triggers appended since they were made, in one statement, so one
-- snapshot: every write committed before it is in both terms or in neither. It holds no lock on
-- webhook_deliveries beyond a read's when it runs on its own, and run in the same transaction as the
-- first (a runner that applies a migration whole), writers wait for the count.

DO U&'
BEGIN
CREATE TABLE "webhook_delivery_counts" (
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)\003B

CREATE FUNCTION "webhook_delivery_counts_on_insert"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_delivery_counts" ("status", "n") SELECT "status", COUNT(*) FROM "new_rows" GROUP BY "status"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_delivery_counts_on_update"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_delivery_counts" ("status", "n")
  SELECT "status", SUM("n") FROM (
    SELECT "status", 1 AS "n" FROM "new_rows"
    UNION ALL
    SELECT "status", -1 FROM "old_rows"
  ) AS "changes"
  GROUP BY "status" HAVING SUM("n") <> 0\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_delivery_counts_on_delete"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "webhook_delivery_counts" ("status", "n") SELECT "status", -COUNT(*) FROM "old_rows" GROUP BY "status"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE FUNCTION "webhook_delivery_counts_on_truncate"() RETURNS TRIGGER LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "webhook_delivery_counts"\003B
  RETURN NULL\003B
END
$fn$\003B

CREATE TRIGGER "webhook_delivery_counts_insert" AFTER INSERT ON "webhook_deliveries"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_on_insert"()\003B

CREATE TRIGGER "webhook_delivery_counts_update" AFTER UPDATE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_on_update"()\003B

CREATE TRIGGER "webhook_delivery_counts_delete" AFTER DELETE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_on_delete"()\003B

CREATE TRIGGER "webhook_delivery_counts_truncate" AFTER TRUNCATE ON "webhook_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_delivery_counts_on_truncate"()\003B
END
';

INSERT INTO "webhook_delivery_counts" ("status", "n")
SELECT "status", SUM("n") FROM (
  SELECT "status", COUNT(*) AS "n" FROM "webhook_deliveries" GROUP BY "status"
  UNION ALL
  SELECT "status", -SUM("n") FROM "webhook_delivery_counts" GROUP BY "status"
) AS "seed"
GROUP BY "status" HAVING SUM("n") <> 0;
