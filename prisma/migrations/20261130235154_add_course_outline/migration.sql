-- DropForeignKey
ALTER TABLE "course_offerings" DROP CONSTRAINT "course_offerings_course_id_fkey";

-- An offering's course is its scope (src/courses/outline.ts): the column is renamed, its values kept (by hand:
-- Prisma's diff drops and adds it).
DROP INDEX "course_offerings_course_id_alias_key";
ALTER TABLE "course_offerings" RENAME COLUMN "course_id" TO "scope_id";
-- PostgreSQL 18 names a NOT NULL constraint after its column (PGlite); 15 has none to rename.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'course_offerings_course_id_not_null') THEN
    ALTER TABLE "course_offerings" RENAME CONSTRAINT "course_offerings_course_id_not_null" TO "course_offerings_scope_id_not_null";
  END IF;
END $$;
ALTER TABLE "course_offerings" ADD COLUMN     "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT 'course';

-- A section's scope is its offering's course.
ALTER TABLE "course_sections" ADD COLUMN     "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT 'course',
ADD COLUMN     "scope_id" INTEGER;
UPDATE "course_sections" s SET "scope_id" = o."scope_id" FROM "course_offerings" o WHERE o."id" = s."offering_id";
ALTER TABLE "course_sections" ALTER COLUMN "scope_id" SET NOT NULL;

-- CreateTable
CREATE TABLE "course_units" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "offering_id" INTEGER,
    "section_id" INTEGER,
    "title" TEXT NOT NULL,
    "state" INTEGER NOT NULL DEFAULT 1,
    "publish_up" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publish_down" TIMESTAMP(3),
    "ordering" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_units_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_asset_groups" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "unit_id" INTEGER,
    "parent" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "state" INTEGER NOT NULL DEFAULT 1,
    "params" JSONB NOT NULL DEFAULT '{}',
    "ordering" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_asset_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_assets" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "title" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subtype" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL DEFAULT '',
    "state" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "course_assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "course_asset_associations" (
    "asset_id" INTEGER NOT NULL,
    "container" TEXT NOT NULL,
    "container_id" INTEGER NOT NULL,
    "ordering" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "course_asset_associations_pkey" PRIMARY KEY ("asset_id","container","container_id")
);

-- CreateIndex
CREATE INDEX "course_units_scope_scope_id_id_idx" ON "course_units"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "course_units_offering_id_ordering_id_idx" ON "course_units"("offering_id", "ordering", "id");

-- CreateIndex
CREATE INDEX "course_asset_groups_scope_scope_id_id_idx" ON "course_asset_groups"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "course_asset_groups_unit_id_ordering_id_idx" ON "course_asset_groups"("unit_id", "ordering", "id");

-- CreateIndex
CREATE INDEX "course_asset_groups_parent_idx" ON "course_asset_groups"("parent");

-- CreateIndex
CREATE INDEX "course_assets_scope_scope_id_id_idx" ON "course_assets"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "course_asset_associations_container_container_id_ordering_a_idx" ON "course_asset_associations"("container", "container_id", "ordering", "asset_id");

-- CreateIndex
CREATE UNIQUE INDEX "course_offerings_scope_id_alias_key" ON "course_offerings"("scope_id", "alias");

-- AddForeignKey
ALTER TABLE "course_offerings" ADD CONSTRAINT "course_offerings_scope_id_fkey" FOREIGN KEY ("scope_id") REFERENCES "courses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_offering_id_fkey" FOREIGN KEY ("offering_id") REFERENCES "course_offerings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_section_id_fkey" FOREIGN KEY ("section_id") REFERENCES "course_sections"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_asset_groups" ADD CONSTRAINT "course_asset_groups_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "course_units"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_asset_groups" ADD CONSTRAINT "course_asset_groups_parent_fkey" FOREIGN KEY ("parent") REFERENCES "course_asset_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_asset_groups" ADD CONSTRAINT "course_asset_groups_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_assets" ADD CONSTRAINT "course_assets_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "course_asset_associations" ADD CONSTRAINT "course_asset_associations_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "course_assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The documented values only (src/courses/outline.ts).
ALTER TABLE "course_offerings" ADD CONSTRAINT "course_offerings_scope_check" CHECK ("scope" = 'course');
ALTER TABLE "course_offerings" ADD CONSTRAINT "course_offerings_alias_check" CHECK ("alias" ~ '^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$');
ALTER TABLE "course_sections" ADD CONSTRAINT "course_sections_scope_check" CHECK ("scope" = 'course');
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_scope_check" CHECK ("scope" IN ('course', 'site'));
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "course_asset_groups" ADD CONSTRAINT "course_asset_groups_scope_check" CHECK ("scope" IN ('course', 'site'));
ALTER TABLE "course_asset_groups" ADD CONSTRAINT "course_asset_groups_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "course_assets" ADD CONSTRAINT "course_assets_scope_check" CHECK ("scope" IN ('course', 'site'));
ALTER TABLE "course_assets" ADD CONSTRAINT "course_assets_state_check" CHECK ("state" IN (0, 1, 2));
ALTER TABLE "course_assets" ADD CONSTRAINT "course_assets_type_check" CHECK ("type" IN ('file', 'link', 'object', 'wiki', 'tool'));
ALTER TABLE "course_asset_associations" ADD CONSTRAINT "course_asset_associations_container_check" CHECK ("container" IN ('asset_group', 'unit', 'offering'));
-- A record in no container yet is the site's (scope site 0); one in a container is in its course's scope.
ALTER TABLE "course_units" ADD CONSTRAINT "course_units_unattached_check" CHECK (("offering_id" IS NULL) = ("scope" = 'site'));
