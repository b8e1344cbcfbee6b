-- CreateTable
CREATE TABLE "announcements" (
    "id" SERIAL NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "sticky" INTEGER NOT NULL DEFAULT 0,
    "rank" INTEGER NOT NULL DEFAULT 0,
    "publish_up" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publish_down" TIMESTAMP(3),
    "scope" TEXT NOT NULL DEFAULT 'group',
    "scope_id" INTEGER NOT NULL,
    "state" INTEGER NOT NULL DEFAULT 1,
    "access" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER NOT NULL,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "announcements_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_id_idx" ON "announcements"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_rank_id_idx" ON "announcements"("scope", "scope_id", "rank", "id");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_priority_id_idx" ON "announcements"("scope", "scope_id", "priority", "id");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_title_id_idx" ON "announcements"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_created_id_idx" ON "announcements"("scope", "scope_id", "created", "id");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_publish_up_id_idx" ON "announcements"("scope", "scope_id", "publish_up", "id", "publish_down", "state", "access");

-- CreateIndex
CREATE INDEX "announcements_scope_scope_id_publish_down_id_idx" ON "announcements"("scope", "scope_id", "publish_down", "id", "publish_up", "state", "access");

-- CreateIndex
CREATE INDEX "announcements_title_trgm_idx" ON "announcements" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "announcements_content_trgm_idx" ON "announcements" USING GIN ("content" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- The documented numbers only (the contract test writes an undocumented value and expects a refusal).
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_access_check" CHECK ("access" IN (0, 1, 2));
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_sticky_check" CHECK ("sticky" IN (0, 1));
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_priority_check" CHECK ("priority" BETWEEN -9999 AND 9999);
-- Announcements belong to groups only (docs/decisions.md, "Group plugins").
ALTER TABLE "announcements" ADD CONSTRAINT "announcements_scope_check" CHECK ("scope" = 'group');

-- Totals without COUNT(*), and the versions search totals rely on (docs/adding-an-area.md, "Indexes, counters").
SELECT list_counts_track('announcements', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', 'publish_up', 'publish_down');
SELECT list_versions_track('announcements', 'scope', 'scope_id');
