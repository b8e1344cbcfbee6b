-- AlterTable
ALTER TABLE "oauth_tokens" ADD COLUMN     "family_id" TEXT,
ADD COLUMN     "rotated_at" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "oauth_tokens_family_id_idx" ON "oauth_tokens"("family_id");

