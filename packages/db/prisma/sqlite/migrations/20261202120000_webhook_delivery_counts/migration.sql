-- Hand-written (issue 48, docs/webhooks-sender.md, "Counts by status"). /metrics showed deliveries
-- by status with a COUNT(*) over the whole of webhook_deliveries on every scrape. The counts are kept
-- here instead, by triggers, so they stay right whatever code writes the table (this release, the
-- one before it during a rolling upgrade, a purge by hand). SQLite has one writer at a time, so one
-- row per status updated in place costs no waiting (PostgreSQL's migration of the same name appends
-- to a ledger instead). An UPDATE that does not move a delivery's status (a claim, a retry
-- scheduled) fires nothing.
--
-- The seed runs after the triggers, as one statement, and sets every status the table or the
-- counts know to the table's count at that instant: a write between the triggers and the seed
-- (another process) is in the count it sets, whatever the triggers added for it.

CREATE TABLE "webhook_delivery_counts" (
    "status" TEXT NOT NULL PRIMARY KEY,
    "n" INTEGER NOT NULL
);

INSERT INTO "webhook_delivery_counts" ("status", "n") VALUES ('pending', 0), ('delivered', 0), ('failed', 0);

CREATE TRIGGER "webhook_delivery_counts_insert" AFTER INSERT ON "webhook_deliveries" BEGIN
  INSERT INTO "webhook_delivery_counts" ("status", "n") VALUES (NEW."status", 1)
    ON CONFLICT ("status") DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "webhook_delivery_counts_update" AFTER UPDATE OF "status" ON "webhook_deliveries"
  WHEN OLD."status" IS NOT NEW."status" BEGIN
  UPDATE "webhook_delivery_counts" SET "n" = "n" - 1 WHERE "status" = OLD."status";
  INSERT INTO "webhook_delivery_counts" ("status", "n") VALUES (NEW."status", 1)
    ON CONFLICT ("status") DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "webhook_delivery_counts_delete" AFTER DELETE ON "webhook_deliveries" BEGIN
  UPDATE "webhook_delivery_counts" SET "n" = "n" - 1 WHERE "status" = OLD."status";
END;

INSERT INTO "webhook_delivery_counts" ("status", "n")
SELECT "known"."status", COALESCE("c"."n", 0)
FROM (SELECT "status" FROM "webhook_delivery_counts" UNION SELECT "status" FROM "webhook_deliveries") AS "known"
LEFT JOIN (SELECT "status", COUNT(*) AS "n" FROM "webhook_deliveries" GROUP BY "status") AS "c" ON "c"."status" = "known"."status"
WHERE true
ON CONFLICT ("status") DO UPDATE SET "n" = excluded."n";
