-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_access_tokens" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "installation_id" BIGINT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "superseded_at" DATETIME,
    "reminder_sent_at" DATETIME,
    "reminder_failures" INTEGER NOT NULL DEFAULT 0,
    "reminder_retry_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "access_tokens_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_access_tokens" ("created_at", "expires_at", "id", "installation_id", "reminder_sent_at", "superseded_at", "token_hash") SELECT "created_at", "expires_at", "id", "installation_id", "reminder_sent_at", "superseded_at", "token_hash" FROM "access_tokens";
DROP TABLE "access_tokens";
ALTER TABLE "new_access_tokens" RENAME TO "access_tokens";
CREATE UNIQUE INDEX "access_tokens_token_hash_key" ON "access_tokens"("token_hash");
CREATE INDEX "access_tokens_installation_id_idx" ON "access_tokens"("installation_id");
CREATE INDEX "access_tokens_expires_at_idx" ON "access_tokens"("expires_at");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
