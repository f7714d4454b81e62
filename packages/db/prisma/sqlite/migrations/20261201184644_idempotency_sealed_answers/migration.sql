-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN "sealed" BLOB;

-- CreateTable
CREATE TABLE "idempotency_usage" (
    "quota_scope" TEXT NOT NULL,
    "expires_minute" INTEGER NOT NULL,
    "bytes" BIGINT NOT NULL,

    PRIMARY KEY ("quota_scope", "expires_minute")
);

-- CreateIndex
CREATE INDEX "idempotency_usage_expires_minute_idx" ON "idempotency_usage"("expires_minute");
