-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").

-- Compiled list triggers. The count and version triggers ran generic functions that built their statement
-- text with format() and EXECUTEd it on every write: PostgreSQL parsed and planned four such statements per
-- wiki create, about 60 % of the database's work for it (pgbench, 20 clients: 959 creates/s with them,
-- 2,288 without; docs/performance.md, "Writes"). list_counts_track and list_versions_track now write one
-- function per table and event, whose statements are plain SQL in PL/pgSQL: planned once per connection
-- and kept. What they do is unchanged (the same upsert texts are compiled in); the triggers keep their
-- names and arguments, which say what they were compiled from (test/totals.test.ts checks them).

CREATE OR REPLACE FUNCTION list_counts_track(listed text, published_column text, published_value int, access_column text, creator_column text,
                                             scope_column text, scope_id_column text, up_column text, down_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  arguments text := format('%L, %L, %L, %L, %L, %L, %L, %L', published_column, published_value, access_column, creator_column,
                           scope_column, scope_id_column, up_column, down_column);
  key text := list_counts_key(published_column, published_value, access_column, creator_column, scope_column, scope_id_column, up_column, down_column);
  event text;
  changes text;
  body text;
  name text;
BEGIN
  FOREACH event IN ARRAY ARRAY['insert', 'update', 'delete'] LOOP
    name := listed || '_list_counts_' || event;
    changes := CASE event
      WHEN 'insert' THEN format('SELECT %s, 1 AS delta FROM new_rows', key)
      WHEN 'delete' THEN format('SELECT %s, -1 AS delta FROM old_rows', key)
      ELSE format('SELECT %1$s, 1 AS delta FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', key) END;
    body := list_counts_upsert(listed, changes) || ';';
    IF up_column <> '' THEN
      body := body || list_count_days_upsert(listed, changes) || ';';
    END IF;
    EXECUTE format('CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L', name, 'BEGIN ' || body || ' RETURN NULL; END');
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', name, listed);
    EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %I(%s)',
                   name, upper(event), listed,
                   CASE event WHEN 'insert' THEN 'NEW TABLE AS new_rows' WHEN 'delete' THEN 'OLD TABLE AS old_rows'
                              ELSE 'OLD TABLE AS old_rows NEW TABLE AS new_rows' END,
                   name, arguments);
  END LOOP;
  DELETE FROM list_counts WHERE table_name = listed;
  EXECUTE list_counts_upsert(listed, format('SELECT %s, 1 AS delta FROM %I', key, listed));
  DELETE FROM list_count_days WHERE table_name = listed;
  IF up_column <> '' THEN
    EXECUTE list_count_days_upsert(listed, format('SELECT %s, 1 AS delta FROM %I', key, listed));
  END IF;
END $$;

CREATE OR REPLACE FUNCTION list_versions_track(listed text, scope_column text, scope_id_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  arguments text := format('%L, %L', scope_column, scope_id_column);
  key text := list_versions_key(scope_column, scope_id_column);
  event text;
  body text;
  name text;
BEGIN
  FOREACH event IN ARRAY ARRAY['insert', 'update', 'delete', 'truncate'] LOOP
    name := listed || '_list_versions_' || event;
    body := CASE event
      WHEN 'insert' THEN list_versions_upsert(listed, format('SELECT %s FROM new_rows', key))
      WHEN 'delete' THEN list_versions_upsert(listed, format('SELECT %s FROM old_rows', key))
      WHEN 'update' THEN list_versions_upsert(listed, format('SELECT %1$s FROM new_rows UNION ALL SELECT %1$s FROM old_rows', key))
      -- TRUNCATE names no rows: every scope of the table (each holding rows has its version rows) is stamped.
      ELSE format('UPDATE list_versions SET version = pg_current_xact_id()::text::bigint WHERE table_name = %L', listed) END;
    EXECUTE format('CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L', name, 'BEGIN ' || body || '; RETURN NULL; END');
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', name, listed);
    EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I %s FOR EACH STATEMENT EXECUTE FUNCTION %I(%s)',
                   name, upper(event), listed,
                   CASE event WHEN 'insert' THEN 'REFERENCING NEW TABLE AS new_rows' WHEN 'delete' THEN 'REFERENCING OLD TABLE AS old_rows'
                              WHEN 'update' THEN 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows' ELSE '' END,
                   name, arguments);
  END LOOP;
  EXECUTE list_versions_upsert(listed, format('SELECT %s FROM %I', key, listed));
END $$;

-- The listed tables, as their list specs declare them (src/<area>/service.ts; test/totals.test.ts checks both agree).
SELECT list_counts_track('wiki_pages', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '', '');
SELECT list_counts_track('blog_entries', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', 'publish_up', 'publish_down');
SELECT list_counts_track('citations', 'published', 1, '', '', '', '', '', '');
SELECT list_versions_track('wiki_pages', 'scope', 'scope_id');
SELECT list_versions_track('blog_entries', 'scope', 'scope_id');
SELECT list_versions_track('citations', '', '');

-- The generic trigger functions have no trigger left.
DROP FUNCTION list_counts_trigger();
DROP FUNCTION list_versions_trigger();
