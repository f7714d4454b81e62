-- AlterTable
ALTER TABLE "resource_feedback" ADD COLUMN "feedback_generated_at_text" TEXT;
