-- CreateTable
CREATE TABLE "resource_feedback" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "installation_id" BIGINT NOT NULL,
    "product_id" BIGINT NOT NULL,
    "state" TEXT NOT NULL,
    "messages" TEXT NOT NULL DEFAULT '[]',
    "feedback_generated_at" DATETIME NOT NULL,
    "resource_updated_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "resource_feedback_installation_id_fkey" FOREIGN KEY ("installation_id") REFERENCES "installations" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "resource_feedback_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "resource_feedback_store_id_product_id_idx" ON "resource_feedback"("store_id", "product_id");

-- CreateIndex
CREATE INDEX "resource_feedback_installation_id_idx" ON "resource_feedback"("installation_id");

-- CreateIndex
CREATE INDEX "resource_feedback_product_id_idx" ON "resource_feedback"("product_id");

-- CreateIndex
CREATE UNIQUE INDEX "resource_feedback_store_id_app_id_product_id_key" ON "resource_feedback"("store_id", "app_id", "product_id");
