-- AlterTable
ALTER TABLE "access_tokens" ADD COLUMN "reminder_sent_at" DATETIME;

-- CreateIndex
CREATE INDEX "access_tokens_expires_at_idx" ON "access_tokens"("expires_at");
