-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "topic" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "api_version" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "disabled_reason" TEXT,
    "failure_streak" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "store_id" BIGINT NOT NULL,
    "app_id" BIGINT NOT NULL,
    "subscription_id" BIGINT NOT NULL,
    "topic" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "api_version" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "triggered_at" DATETIME NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL,
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    "last_error" TEXT,
    "delivered_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "delivery_id" BIGINT NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" DATETIME NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "response_status" INTEGER,
    "error" TEXT,
    "response_body" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "webhook_subscriptions_store_id_app_id_id_idx" ON "webhook_subscriptions"("store_id", "app_id", "id");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_store_id_topic_status_idx" ON "webhook_subscriptions"("store_id", "topic", "status");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_subscriptions_store_id_app_id_topic_address_key" ON "webhook_subscriptions"("store_id", "app_id", "topic", "address");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_key" ON "webhook_deliveries"("webhook_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscription_id_status_id_idx" ON "webhook_deliveries"("subscription_id", "status", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_store_id_status_id_idx" ON "webhook_deliveries"("store_id", "status", "id");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_id_idx" ON "webhook_attempts"("delivery_id", "id");
