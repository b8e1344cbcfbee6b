-- CreateTable
CREATE TABLE "list_versions" (
    "table_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "list_versions_pkey" PRIMARY KEY ("table_name","scope","scope_id")
);


-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").

-- list_versions: one statement trigger per listed table and event sets the version of every scope the
-- statement wrote in (its old and its new rows) to the writing transaction's id, in that transaction. A
-- search total counted together with the version it was read with holds for as long as a later statement
-- reads the same version (src/common/totals.ts): a transaction id is never issued twice, a rolled-back
-- write leaves the version as it found it, and writers of one scope queue on its row, so a snapshot that
-- sees a version sees every write up to it. Arguments: the scope and scope id columns ('' where the table
-- has none: one version for the whole table, scope '' and 0).

-- The scope key of a row of a listed table, as a select list.
CREATE FUNCTION list_versions_key(scope_column text, scope_id_column text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN scope_column = '' THEN $key$''::text AS scope, 0 AS scope_id$key$
              ELSE format('%I AS scope, %I AS scope_id', scope_column, scope_id_column) END
$$;

-- The statement that stamps the scopes of `changed` (rows of scope keys) with the current transaction.
-- Sorted, so concurrent writers lock the version rows they share in the same order; a scope this
-- transaction stamped already is left alone.
CREATE FUNCTION list_versions_upsert(table_name text, changed text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_versions AS v (table_name, scope, scope_id, version)
    SELECT %L, scope, scope_id, pg_current_xact_id()::text::bigint
      FROM (%s) d
     GROUP BY scope, scope_id
     ORDER BY 2, 3
    ON CONFLICT (table_name, scope, scope_id) DO UPDATE SET version = excluded.version WHERE v.version <> excluded.version
  $sql$, table_name, changed)
$$;

-- The transition tables (new_rows, old_rows) are visible to this function's own statements only, so it
-- runs the upsert itself. TRUNCATE names no rows: it stamps every scope of the table (each scope holding
-- rows has its version row from list_versions_track on).
CREATE FUNCTION list_versions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key text := list_versions_key(TG_ARGV[0], TG_ARGV[1]);
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE list_versions SET version = pg_current_xact_id()::text::bigint WHERE table_name = TG_TABLE_NAME;
    RETURN NULL;
  END IF;
  EXECUTE list_versions_upsert(TG_TABLE_NAME, CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %s FROM new_rows', key)
    WHEN 'DELETE' THEN format('SELECT %s FROM old_rows', key)
    ELSE format('SELECT %1$s FROM new_rows UNION ALL SELECT %1$s FROM old_rows', key) END);
  RETURN NULL;
END $$;

-- Installs the triggers on a listed table and gives every scope it holds rows in a version.
CREATE FUNCTION list_versions_track(listed text, scope_column text, scope_id_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  arguments text := format('%L, %L', scope_column, scope_id_column);
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_trigger(%s)',
                 listed || '_list_versions_insert', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_trigger(%s)',
                 listed || '_list_versions_update', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_trigger(%s)',
                 listed || '_list_versions_delete', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_versions_trigger(%s)',
                 listed || '_list_versions_truncate', listed, arguments);
  EXECUTE list_versions_upsert(listed, format('SELECT %s FROM %I', list_versions_key(scope_column, scope_id_column), listed));
END $$;

-- The listed tables, as their list specs declare them (src/<area>/service.ts; test/totals.test.ts checks both agree).
SELECT list_versions_track('wiki_pages', 'scope', 'scope_id');
SELECT list_versions_track('blog_entries', 'scope', 'scope_id');
SELECT list_versions_track('citations', '', '');
