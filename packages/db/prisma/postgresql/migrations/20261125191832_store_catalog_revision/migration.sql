-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "catalog_revision" BIGINT NOT NULL DEFAULT 0;
