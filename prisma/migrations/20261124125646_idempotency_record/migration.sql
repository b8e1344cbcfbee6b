-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "record_id" INTEGER;

