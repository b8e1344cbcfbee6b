-- CreateEnum
CREATE TYPE "CourseRole" AS ENUM ('learner', 'manager');

-- CreateTable
CREATE TABLE "courses" (
    "id" SERIAL NOT NULL,
    "alias" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "state" INTEGER NOT NULL DEFAULT 0,
    "access" INTEGER NOT NULL DEFAULT 0,
    "visibility" INTEGER NOT NULL DEFAULT 1,
    "published" INTEGER NOT NULL DEFAULT 1,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "courses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_offerings" (
    "id" SERIAL NOT NULL,
    "course_id" INTEGER NOT NULL,
    "alias" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "state" INTEGER NOT NULL DEFAULT 1,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_offerings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_sections" (
    "id" SERIAL NOT NULL,
    "offering_id" INTEGER NOT NULL,
    "alias" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "state" INTEGER NOT NULL DEFAULT 1,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_sections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_members" (
    "course_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "role" "CourseRole" NOT NULL,
    "offering_id" INTEGER,
    "section_id" INTEGER,
    "enrolled" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_members_pkey" PRIMARY KEY ("course_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "courses_alias_key" ON "courses"("alias");

-- CreateIndex
CREATE INDEX "courses_title_id_idx" ON "courses"("title", "id");

-- CreateIndex
CREATE INDEX "courses_alias_id_idx" ON "courses"("alias", "id");

-- CreateIndex
CREATE INDEX "courses_created_id_idx" ON "courses"("created", "id");

-- CreateIndex
CREATE INDEX "courses_modified_id_idx" ON "courses"("modified", "id");

-- CreateIndex
CREATE INDEX "courses_title_trgm_idx" ON "courses" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "courses_description_trgm_idx" ON "courses" USING GIN ("description" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "course_offerings_course_id_alias_key" ON "course_offerings"("course_id", "alias");

-- CreateIndex
CREATE UNIQUE INDEX "course_sections_offering_id_alias_key" ON "course_sections"("offering_id", "alias");

-- CreateIndex
CREATE INDEX "course_members_user_id_role_course_id_idx" ON "course_members"("user_id", "role", "course_id");

-- CreateIndex
CREATE INDEX "course_members_course_id_role_user_id_idx" ON "course_members"("course_id", "role", "user_id");

-- AddForeignKey
ALTER TABLE "courses" ADD CONSTRAINT "courses_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_offerings" ADD CONSTRAINT "course_offerings_course_id_fkey" FOREIGN KEY ("course_id") REFERENCES "courses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_sections" ADD CONSTRAINT "course_sections_offering_id_fkey" FOREIGN KEY ("offering_id") REFERENCES "course_offerings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_members" ADD CONSTRAINT "course_members_course_id_fkey" FOREIGN KEY ("course_id") REFERENCES "courses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_members" ADD CONSTRAINT "course_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_members" ADD CONSTRAINT "course_members_offering_id_fkey" FOREIGN KEY ("offering_id") REFERENCES "course_offerings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_members" ADD CONSTRAINT "course_members_section_id_fkey" FOREIGN KEY ("section_id") REFERENCES "course_sections"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The counter triggers as the records declarations name them (src/common/count-triggers.ts, countTriggerArguments):
-- Course (courses): the declaration names (published, 1, visibility, , , , , ); the database has no counter triggers
SELECT list_counts_track('courses', 'published', 1, 'visibility', '', '', '', '', '');

-- The documented values only; a course's visibility is what its state and access make it (src/courses/area.ts).
ALTER TABLE "courses" ADD CONSTRAINT "courses_alias_check" CHECK ("alias" ~ '^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$');
ALTER TABLE "courses" ADD CONSTRAINT "courses_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "courses" ADD CONSTRAINT "courses_access_check" CHECK ("access" IN (0, 1));
ALTER TABLE "courses" ADD CONSTRAINT "courses_visibility_check" CHECK ("visibility" = CASE WHEN "state" = 1 AND "access" = 0 THEN 0 ELSE 1 END);
ALTER TABLE "courses" ADD CONSTRAINT "courses_published_check" CHECK ("published" = 1);
ALTER TABLE "course_offerings" ADD CONSTRAINT "course_offerings_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "course_sections" ADD CONSTRAINT "course_sections_state_check" CHECK ("state" IN (0, 1));
-- A manager manages every offering: only learners are enrolled in one (and a section of it).
ALTER TABLE "course_members" ADD CONSTRAINT "course_members_enrolment_check" CHECK ("role" = 'learner' OR ("offering_id" IS NULL AND "section_id" IS NULL));

-- The versions filtered and searched totals rely on (docs/adding-an-area.md, "Indexes, counters").
SELECT list_versions_track('courses', '', '');
