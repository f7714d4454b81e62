-- AlterTable
ALTER TABLE "access_tokens" ADD COLUMN     "reminder_failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reminder_retry_at" TIMESTAMP(3);
