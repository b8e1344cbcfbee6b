-- The groups area (issue 17): a group's descriptions, tags, policies (the original's numbers: join_policy
-- 0 open, 1 restricted, 2 invite_only, 3 closed; discoverability 0 visible, 1 hidden), creator, list
-- indexes and counters. Groups made before this keep their cn; the format check holds for new and changed
-- rows (NOT VALID), since an older cn may hold characters the API no longer accepts, and every path also
-- takes the gidNumber.

-- AlterTable
ALTER TABLE "groups" ADD COLUMN     "created_by" INTEGER,
ADD COLUMN     "discoverability" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "join_policy" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "private_description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "public_description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "published" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "groups_created_id_idx" ON "groups"("created", "id");

-- CreateIndex
CREATE INDEX "groups_title_id_idx" ON "groups"("title", "id");

-- CreateIndex
CREATE INDEX "groups_cn_id_idx" ON "groups"("cn", "id");

-- CreateIndex
CREATE INDEX "groups_title_trgm_idx" ON "groups" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "groups_cn_trgm_idx" ON "groups" USING GIN ("cn" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "groups" ADD CONSTRAINT "groups_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


ALTER TABLE "groups" ADD CONSTRAINT "groups_cn_check" CHECK ("cn" ~ '^[a-z][a-z0-9]*$' AND length("cn") <= 100) NOT VALID;
ALTER TABLE "groups" ADD CONSTRAINT "groups_join_policy_check" CHECK ("join_policy" IN (0, 1, 2, 3));
ALTER TABLE "groups" ADD CONSTRAINT "groups_discoverability_check" CHECK ("discoverability" IN (0, 1));
ALTER TABLE "groups" ADD CONSTRAINT "groups_published_check" CHECK ("published" IN (0, 1));

-- Totals from counters (docs/adding-an-area.md): published rows per discoverability; groups have no scope.
SELECT list_counts_track('groups', 'published', 1, 'discoverability', '', '', '', '', '');
SELECT list_versions_track('groups', '', '');
