-- AlterTable
ALTER TABLE "oauth_tokens" ADD COLUMN     "grace_sealed" TEXT;

