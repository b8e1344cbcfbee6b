-- A group's managers without reading its other members: every membership transition counts the group's
-- managers (a group never loses its last manager) and the members list pages its managers; through
-- (group_id, status, user_id) both read every member of the group and dropped all but the managers
-- (3,001 rows for 3 managers of 3,000 members; src/groups/groups.test.ts, plan test). A partial index
-- (WHERE manager) would be smaller, but Prisma 6's schema cannot declare one, and npm run db:check holds the
-- migrations to the schema.
-- CreateIndex
CREATE INDEX "group_members_group_id_status_manager_user_id_idx" ON "group_members"("group_id", "status", "manager", "user_id");
