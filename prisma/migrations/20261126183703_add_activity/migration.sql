-- CreateTable
CREATE TABLE "activity" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "action" TEXT NOT NULL,
    "alias" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL,
    "anonymous" INTEGER NOT NULL DEFAULT 0,
    "parent" INTEGER NOT NULL DEFAULT 0,
    "recipients" TEXT NOT NULL DEFAULT '',
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER NOT NULL,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source_event" BIGINT,

    CONSTRAINT "activity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activity_recipients" (
    "entry_id" INTEGER NOT NULL,
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "created" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "activity_recipients_pkey" PRIMARY KEY ("entry_id","scope","scope_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "activity_source_event_key" ON "activity"("source_event");

-- CreateIndex
CREATE INDEX "activity_scope_scope_id_id_idx" ON "activity"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "activity_scope_scope_id_created_id_idx" ON "activity"("scope", "scope_id", "created", "id");

-- CreateIndex
CREATE INDEX "activity_scope_scope_id_action_id_idx" ON "activity"("scope", "scope_id", "action", "id");

-- CreateIndex
CREATE INDEX "activity_created_id_idx" ON "activity"("created", "id");

-- CreateIndex
CREATE INDEX "activity_description_trgm_idx" ON "activity" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "activity_recipients_scope_scope_id_created_entry_id_idx" ON "activity_recipients"("scope", "scope_id", "created", "entry_id");

-- AddForeignKey
ALTER TABLE "activity" ADD CONSTRAINT "activity_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activity_recipients" ADD CONSTRAINT "activity_recipients_entry_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "activity"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The documented numbers only.
ALTER TABLE "activity" ADD CONSTRAINT "activity_anonymous_check" CHECK ("anonymous" IN (0, 1));
-- Search totals (a filtered or searched list counts the matching rows once per version of the scope).
SELECT list_versions_track('activity', 'scope', 'scope_id');
