-- The manual clock stores the instant it reads (it stands still until moved) instead of an offset
-- from real time, a stored offset becomes the instant it gave when this migration runs.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_platform_clock" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT DEFAULT 1,
    "now_ms" BIGINT NOT NULL,
    "updated_at" DATETIME NOT NULL
);
INSERT INTO "new_platform_clock" ("id", "now_ms", "updated_at")
  SELECT "id", CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + "offset_ms", "updated_at" FROM "platform_clock";
DROP TABLE "platform_clock";
ALTER TABLE "new_platform_clock" RENAME TO "platform_clock";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
