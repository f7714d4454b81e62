-- Before this, a description never given and one cleared were both stored as "", both read as never given.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_metafield_definitions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT,
    "owner_resource" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL,
    "validations" TEXT NOT NULL DEFAULT '[]',
    "access_admin" TEXT,
    "rules_revision" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);
INSERT INTO "new_metafield_definitions" ("access_admin", "app_id", "created_at", "description", "id", "key", "name", "namespace", "owner_resource", "rules_revision", "store_id", "type", "updated_at", "validations") SELECT "access_admin", "app_id", "created_at", NULLIF("description", ''), "id", "key", "name", "namespace", "owner_resource", "rules_revision", "store_id", "type", "updated_at", "validations" FROM "metafield_definitions";
DROP TABLE "metafield_definitions";
ALTER TABLE "new_metafield_definitions" RENAME TO "metafield_definitions";
CREATE INDEX "metafield_definitions_store_id_id_idx" ON "metafield_definitions"("store_id", "id");
CREATE UNIQUE INDEX "metafield_definitions_store_id_owner_resource_namespace_key_key" ON "metafield_definitions"("store_id", "owner_resource", "namespace", "key");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
