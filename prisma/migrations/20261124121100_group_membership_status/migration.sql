-- A membership is one row per (group, user) with a status and a manager flag (issue 17), instead of one
-- row per (group, user, role), where one person could be invitee and member at once and a manager was two
-- rows. Today's rows collapse, per (group, user): any `member` or `manager` row makes a member (a manager
-- row alone made a member too: src/groups/membership.ts read both as membership), `manager` sets the flag;
-- otherwise an invitation beats a request (a manager already asked them in; they only need to accept), and
-- a request alone stays one. docs/decisions.md, "Group memberships".

CREATE TYPE "GroupMemberStatus" AS ENUM ('member', 'invitee', 'applicant');

CREATE TEMPORARY TABLE "group_members_collapsed" AS
SELECT "group_id",
       "user_id",
       (CASE
         WHEN bool_or("role" IN ('member', 'manager')) THEN 'member'
         WHEN bool_or("role" = 'invitee') THEN 'invitee'
         ELSE 'applicant'
       END)::"GroupMemberStatus" AS "status",
       bool_or("role" = 'manager') AS "manager"
FROM "group_members"
GROUP BY "group_id", "user_id";

DELETE FROM "group_members";

-- DropIndex
DROP INDEX "group_members_user_id_idx";

-- AlterTable
ALTER TABLE "group_members" DROP CONSTRAINT "group_members_pkey",
DROP COLUMN "role",
ADD COLUMN     "manager" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "status" "GroupMemberStatus" NOT NULL,
ADD CONSTRAINT "group_members_pkey" PRIMARY KEY ("group_id", "user_id");

-- Managers are members: the flag means nothing on an invitation or a request (not expressible in Prisma).
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_manager_check" CHECK (NOT "manager" OR "status" = 'member');

INSERT INTO "group_members" ("group_id", "user_id", "status", "manager")
SELECT "group_id", "user_id", "status", "manager" FROM "group_members_collapsed";

DROP TABLE "group_members_collapsed";

-- DropEnum
DROP TYPE "GroupRole";

-- CreateIndex: the group scope's "who belongs" sub-select (user_id = $1 AND status = 'member') and a user's groups.
CREATE INDEX "group_members_user_id_status_group_id_idx" ON "group_members"("user_id", "status", "group_id");

-- CreateIndex: a group's member list, by status.
CREATE INDEX "group_members_group_id_status_user_id_idx" ON "group_members"("group_id", "status", "user_id");
