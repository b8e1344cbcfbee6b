-- AlterTable
ALTER TABLE "forum_posts" ADD COLUMN     "unpublished_by" INTEGER;

