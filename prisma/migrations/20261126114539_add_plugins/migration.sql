-- CreateTable
CREATE TABLE "plugin_records" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "element" TEXT NOT NULL,
    "folder" TEXT NOT NULL,
    "enabled" INTEGER NOT NULL DEFAULT 0,
    "access" INTEGER NOT NULL DEFAULT 1,
    "params" TEXT NOT NULL DEFAULT '{}',
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plugin_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "event_id" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "plugin" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "read_at" TIMESTAMP(3),
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_created_id_idx" ON "plugin_records"("enabled", "access", "created", "id");

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_name_id_idx" ON "plugin_records"("enabled", "access", "name", "id");

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_element_id_idx" ON "plugin_records"("enabled", "access", "element", "id");

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_folder_id_idx" ON "plugin_records"("enabled", "access", "folder", "id");

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_modified_id_idx" ON "plugin_records"("enabled", "access", "modified", "id");

-- CreateIndex
CREATE INDEX "plugin_records_enabled_access_id_idx" ON "plugin_records"("enabled", "access", "id");

-- CreateIndex
CREATE INDEX "plugin_records_folder_enabled_access_created_id_idx" ON "plugin_records"("folder", "enabled", "access", "created", "id");

-- CreateIndex
CREATE INDEX "plugin_records_name_trgm_idx" ON "plugin_records" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "plugin_records_element_trgm_idx" ON "plugin_records" USING GIN ("element" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "plugin_records_folder_element_key" ON "plugin_records"("folder", "element");

-- CreateIndex
CREATE INDEX "notifications_user_id_created_id_idx" ON "notifications"("user_id", "created", "id");

-- CreateIndex
CREATE INDEX "notifications_user_id_read_at_created_id_idx" ON "notifications"("user_id", "read_at", "created", "id");

-- CreateIndex
CREATE UNIQUE INDEX "notifications_event_id_user_id_key" ON "notifications"("event_id", "user_id");

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;



-- The documented numbers only.
ALTER TABLE "plugin_records" ADD CONSTRAINT "plugin_records_enabled_check" CHECK ("enabled" IN (0, 1));
ALTER TABLE "plugin_records" ADD CONSTRAINT "plugin_records_access_check" CHECK ("access" IN (1, 2, 3));

-- The shipped plugins (src/plugins/installed/), enabled.
INSERT INTO "plugin_records" ("name", "element", "folder", "enabled", "access", "params") VALUES
  ('Group join request notifications', 'joinnotify', 'groups', 1, 1, '{}'),
  ('Site content counts', 'counts', 'content', 1, 1, '{}');

-- Totals without COUNT(*), and the versions filtered and searched totals rely on (docs/adding-an-area.md, "Indexes, counters").
SELECT list_counts_track('plugin_records', 'enabled', 1, '', '', '', '', '', '');
SELECT list_versions_track('plugin_records', '', '');
