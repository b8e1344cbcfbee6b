-- AlterTable
ALTER TABLE "list_counts" DROP CONSTRAINT "list_counts_pkey",
ADD COLUMN     "shard" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "list_counts_pkey" PRIMARY KEY ("table_name", "scope", "scope_id", "created_by", "published", "access", "ends", "shard");

-- AlterTable
ALTER TABLE "list_versions" DROP CONSTRAINT "list_versions_pkey",
ADD COLUMN     "shard" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "list_versions_pkey" PRIMARY KEY ("table_name", "scope", "scope_id", "shard");

-- AlterTable
ALTER TABLE "list_count_days" DROP CONSTRAINT "list_count_days_pkey",
ADD COLUMN     "shard" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "list_count_days_pkey" PRIMARY KEY ("table_name", "scope", "scope_id", "created_by", "day", "edge", "access", "shard");

-- CreateTable
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "xid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
    "type" TEXT NOT NULL,
    "area" TEXT NOT NULL,
    "record_id" INTEGER NOT NULL,
    "actor_id" INTEGER,
    "anonymous" BOOLEAN NOT NULL DEFAULT false,
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "visibility" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL,
    "audience" TEXT NOT NULL DEFAULT 'readers',
    "subject_id" INTEGER,
    "changed" TEXT[],
    "payload" JSONB NOT NULL DEFAULT '{}',
    "occurred_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "user_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" INTEGER,
    "answer" TEXT,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("user_id","key")
);

-- CreateIndex
CREATE INDEX "outbox_xid_id_idx" ON "outbox"("xid", "id");

-- CreateIndex
CREATE INDEX "outbox_area_record_id_id_idx" ON "outbox"("area", "record_id", "id");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys"("created");


-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").

-- Sharded counters. Every create in one scope used to add to the same list_counts, list_count_days and
-- list_versions rows, so concurrent writers of a scope queued on those rows' locks until each one
-- committed: one busy scope ran at a third of the rate of twenty quiet ones (docs/performance.md,
-- "Writes"). Each database session now writes the shard pg_backend_pid() % 16 of a key, so writers on
-- different connections rarely share a row; totals add the shards up (sum() over the key, as before),
-- and a scope's version is the list of its shards' versions (src/common/cached-totals.ts).
CREATE FUNCTION list_shard() RETURNS smallint LANGUAGE sql STABLE AS $$ SELECT (pg_backend_pid() % 16)::smallint $$;

CREATE OR REPLACE FUNCTION list_counts_upsert(table_name text, changes text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_counts AS c (table_name, scope, scope_id, created_by, published, access, ends, shard, rows)
    SELECT %L, scope, scope_id, who, published, access, ends, list_shard(), sum(delta)::int
      FROM (%s) d CROSS JOIN LATERAL (VALUES (d.created_by), (0)) AS w(who)
     WHERE who IS NOT NULL
     GROUP BY scope, scope_id, who, published, access, ends
    HAVING sum(delta) <> 0
     ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (table_name, scope, scope_id, created_by, published, access, ends, shard) DO UPDATE SET rows = c.rows + excluded.rows
  $sql$, table_name, changes)
$$;

CREATE OR REPLACE FUNCTION list_count_days_upsert(table_name text, changes text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_count_days AS c (table_name, scope, scope_id, created_by, day, edge, access, shard, rows)
    SELECT %L, d.scope, d.scope_id, w.who, e.day, e.edge, d.access, list_shard(), sum(d.delta)::int
      FROM (%s) d
     CROSS JOIN LATERAL (VALUES ('up', d.window_up::date, d.window_down IS NULL OR d.window_down > d.window_up),
                                ('down', d.window_down::date, d.window_down > d.window_up)) AS e(edge, day, counted)
     CROSS JOIN LATERAL (VALUES (d.created_by), (0)) AS w(who)
     WHERE d.published AND e.counted AND e.day >= (now() AT TIME ZONE 'UTC')::date - 1 AND w.who IS NOT NULL
     GROUP BY d.scope, d.scope_id, w.who, e.day, e.edge, d.access
    HAVING sum(d.delta) <> 0
     ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (table_name, scope, scope_id, created_by, day, edge, access, shard) DO UPDATE SET rows = c.rows + excluded.rows
  $sql$, table_name, changes)
$$;

-- A scope's version is now the versions of its shards: a search total counted in a snapshot holds while
-- a later statement reads the same version on every shard. Each write still sets its shard's row to its
-- own transaction id, which is never issued twice, and writers of one shard queue on its row, so two
-- snapshots that read the same versions on all shards saw the same writes.
CREATE OR REPLACE FUNCTION list_versions_upsert(table_name text, changed text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_versions AS v (table_name, scope, scope_id, shard, version)
    SELECT %L, scope, scope_id, list_shard(), pg_current_xact_id()::text::bigint
      FROM (%s) d
     GROUP BY scope, scope_id
     ORDER BY 2, 3
    ON CONFLICT (table_name, scope, scope_id, shard) DO UPDATE SET version = excluded.version WHERE v.version <> excluded.version
  $sql$, table_name, changed)
$$;
