-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "trace_id" TEXT;
