-- AlterTable
ALTER TABLE "products" ADD COLUMN "listing_doc" BLOB;
ALTER TABLE "products" ADD COLUMN "listing_zone" TEXT;
