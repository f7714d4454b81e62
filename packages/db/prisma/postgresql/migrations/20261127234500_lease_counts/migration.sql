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
--   * the live claims are counted in webhook_lease_counts: per claim (its unique owner),
--     subscription and receiving host, the deliveries whose lease names that host, kept by
--     statement triggers on every write of webhook_deliveries (whichever statement sets or clears a
--     lease, whoever runs it), in the statement's own transaction,
--   * webhook_deliveries keeps half of each page free (fill factor 50, new pages only), the room a
--     claimed row's new version needs beside it.
-- The models keep declaring both indexes as before (Prisma schemas have no partial indexes either,
-- migration 20261126143000_partial_delivery_indexes).

-- DropIndex
DROP INDEX "webhook_deliveries_lease_until_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_subscription_id_next_attempt_at_i_idx" ON "webhook_deliveries"("status", "subscription_id", "next_attempt_at", "id") WHERE "status" = 'pending';

ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);

-- n: deliveries of the claim `owner` whose lease names `host` (attempts in flight, decisions
-- §11.7), counted while lease_until is live. A row whose count reached zero, or whose claim
-- expired, counts nothing and is deleted by the next claim. lease_until is -infinity on a row made
-- by a decrement alone (a claim recorded after its row was deleted): it never counts.
CREATE TABLE "webhook_lease_counts" (
    "owner" TEXT NOT NULL,
    "subscription_id" BIGINT NOT NULL,
    "host" TEXT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "lease_until" TIMESTAMP(3) NOT NULL,
    "n" INTEGER NOT NULL,

    CONSTRAINT "webhook_lease_counts_pkey" PRIMARY KEY ("owner", "subscription_id", "host")
);

-- The leases that already name a host (a sender running through the migration).
INSERT INTO "webhook_lease_counts" ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
SELECT "lease_owner", "subscription_id", "lease_host", "app_id", MAX("lease_until"), COUNT(*)::int
FROM "webhook_deliveries"
WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
GROUP BY "lease_owner", "subscription_id", "lease_host", "app_id";

-- The functions' bodies are U& string constants that spell each semicolon \003B: the migration
-- runner (Prisma's PostgreSQL adapter) sends a script one semicolon-separated piece at a time.
--
-- Each statement's leases before (old_rows) and after (new_rows), summed per claim, subscription
-- and host: +1 for a lease that names a host afterwards, -1 for one that named it before (a row
-- whose lease did not change nets 0 and writes nothing). Rows are written in key order, so two
-- statements never wait on each other's rows in a cycle.
CREATE FUNCTION "webhook_lease_counts_on_update"() RETURNS TRIGGER LANGUAGE plpgsql AS U&'
BEGIN
  INSERT INTO "webhook_lease_counts" AS c ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
  SELECT "owner", "subscription_id", "host", MIN("app_id"), COALESCE(MAX("lease_until"), ''-infinity''), SUM("n")::int
  FROM (
    SELECT "lease_owner" AS "owner", "subscription_id", "lease_host" AS "host", "app_id", "lease_until", 1 AS "n"
    FROM "new_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
    UNION ALL
    SELECT "lease_owner", "subscription_id", "lease_host", "app_id", NULL, -1
    FROM "old_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
  ) AS "changes"
  GROUP BY "owner", "subscription_id", "host"
  HAVING SUM("n") <> 0
  ORDER BY "owner", "subscription_id", "host"
  ON CONFLICT ("owner", "subscription_id", "host")
  DO UPDATE SET "n" = c."n" + EXCLUDED."n", "lease_until" = GREATEST(c."lease_until", EXCLUDED."lease_until")\003B
  RETURN NULL\003B
END
';

CREATE FUNCTION "webhook_lease_counts_on_insert"() RETURNS TRIGGER LANGUAGE plpgsql AS U&'
BEGIN
  INSERT INTO "webhook_lease_counts" AS c ("owner", "subscription_id", "host", "app_id", "lease_until", "n")
  SELECT "lease_owner", "subscription_id", "lease_host", MIN("app_id"), MAX("lease_until"), COUNT(*)::int
  FROM "new_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
  GROUP BY "lease_owner", "subscription_id", "lease_host"
  ORDER BY "lease_owner", "subscription_id", "lease_host"
  ON CONFLICT ("owner", "subscription_id", "host")
  DO UPDATE SET "n" = c."n" + EXCLUDED."n", "lease_until" = GREATEST(c."lease_until", EXCLUDED."lease_until")\003B
  RETURN NULL\003B
END
';

CREATE FUNCTION "webhook_lease_counts_on_delete"() RETURNS TRIGGER LANGUAGE plpgsql AS U&'
BEGIN
  UPDATE "webhook_lease_counts" AS c SET "n" = c."n" - gone."n"
  FROM (
    SELECT "lease_owner" AS "owner", "subscription_id", "lease_host" AS "host", COUNT(*)::int AS "n"
    FROM "old_rows" WHERE "lease_owner" IS NOT NULL AND "lease_host" IS NOT NULL AND "lease_until" IS NOT NULL
    GROUP BY "lease_owner", "subscription_id", "lease_host"
    ORDER BY "lease_owner", "subscription_id", "lease_host"
  ) AS gone
  WHERE c."owner" = gone."owner" AND c."subscription_id" = gone."subscription_id" AND c."host" = gone."host"\003B
  RETURN NULL\003B
END
';

CREATE TRIGGER "webhook_lease_counts_update" AFTER UPDATE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_update"();

CREATE TRIGGER "webhook_lease_counts_insert" AFTER INSERT ON "webhook_deliveries"
  REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_insert"();

CREATE TRIGGER "webhook_lease_counts_delete" AFTER DELETE ON "webhook_deliveries"
  REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_lease_counts_on_delete"();
