-- One row naming this deployment, made once when the database is created or first migrated: the identity
-- REDIS_PREFIX's default is derived from where pg_control_system() is not allowed (src/db/database.ts).
CREATE TABLE "deployment" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),

    CONSTRAINT "deployment_pkey" PRIMARY KEY ("id")
);

INSERT INTO "deployment" DEFAULT VALUES;
