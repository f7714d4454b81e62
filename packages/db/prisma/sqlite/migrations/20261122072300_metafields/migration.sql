-- CreateTable
CREATE TABLE "metafield_definitions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT,
    "owner_resource" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "validations" TEXT NOT NULL DEFAULT '[]',
    "access_admin" TEXT,
    "rules_revision" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "metafields" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "owner_resource" TEXT NOT NULL,
    "owner_id" BIGINT NOT NULL,
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "definition_id" BIGINT,
    "app_id" BIGINT,
    "valid" BOOLEAN NOT NULL DEFAULT true,
    "invalid_reasons" TEXT NOT NULL DEFAULT '[]',
    "checked_revision" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "metaobject_definitions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "metaobjects" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "definition_id" BIGINT NOT NULL,
    "handle" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "metafield_rechecks" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "definition_id" BIGINT NOT NULL,
    "revision" INTEGER NOT NULL,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "lease_until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "metafield_definitions_store_id_id_idx" ON "metafield_definitions"("store_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "metafield_definitions_store_id_owner_resource_namespace_key_key" ON "metafield_definitions"("store_id", "owner_resource", "namespace", "key");

-- CreateIndex
CREATE INDEX "metafields_definition_id_id_idx" ON "metafields"("definition_id", "id");

-- CreateIndex
CREATE INDEX "metafields_store_id_valid_id_idx" ON "metafields"("store_id", "valid", "id");

-- CreateIndex
CREATE UNIQUE INDEX "metafields_store_id_owner_resource_owner_id_namespace_key_key" ON "metafields"("store_id", "owner_resource", "owner_id", "namespace", "key");

-- CreateIndex
CREATE UNIQUE INDEX "metaobject_definitions_store_id_type_key" ON "metaobject_definitions"("store_id", "type");

-- CreateIndex
CREATE INDEX "metaobjects_store_id_id_idx" ON "metaobjects"("store_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "metaobjects_definition_id_handle_key" ON "metaobjects"("definition_id", "handle");

-- CreateIndex
CREATE INDEX "metafield_rechecks_status_id_idx" ON "metafield_rechecks"("status", "id");

-- CreateIndex
CREATE INDEX "metafield_rechecks_definition_id_idx" ON "metafield_rechecks"("definition_id");
