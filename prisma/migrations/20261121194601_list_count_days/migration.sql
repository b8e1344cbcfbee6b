-- CreateTable
CREATE TABLE "list_count_days" (
    "table_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "created_by" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "edge" TEXT NOT NULL,
    "access" INTEGER NOT NULL,
    "rows" INTEGER NOT NULL,

    CONSTRAINT "list_count_days_pkey" PRIMARY KEY ("table_name","scope","scope_id","created_by","day","edge","access")
);


-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").

-- The exact total of a windowed list (the blog's) used to count, on every request, all published rows
-- whose window opens later or has an end still ahead (≈16,000 index entries per list at 10^6 entries,
-- ≈3.5 ms; ≈15 ms for a signed-in user, whose own rows were counted through the heap). list_count_days
-- keeps those rows per UTC day of their publish_up ('up') and publish_down ('down'), so a total sums the
-- buckets of the days after today and counts only today's rows (src/common/paging.ts, countedTotal).
ALTER TABLE "list_count_days" ADD CONSTRAINT "list_count_days_edge_check" CHECK ("edge" IN ('up', 'down'));

-- The triggers now take the window's start column as well: drop them and the functions whose arguments
-- change, then install them again on every listed table (which recounts list_counts and fills
-- list_count_days from the rows already there).
DROP TRIGGER wiki_pages_list_counts_insert ON wiki_pages;
DROP TRIGGER wiki_pages_list_counts_update ON wiki_pages;
DROP TRIGGER wiki_pages_list_counts_delete ON wiki_pages;
DROP TRIGGER blog_entries_list_counts_insert ON blog_entries;
DROP TRIGGER blog_entries_list_counts_update ON blog_entries;
DROP TRIGGER blog_entries_list_counts_delete ON blog_entries;
DROP TRIGGER citations_list_counts_insert ON citations;
DROP TRIGGER citations_list_counts_update ON citations;
DROP TRIGGER citations_list_counts_delete ON citations;
DROP FUNCTION list_counts_track(text, text, int, text, text, text, text, text);
DROP FUNCTION list_counts_key(text, int, text, text, text, text, text);

-- A changed row's key, as select-list items over the row: what list_counts counts by, and the publishing
-- window itself (window_up, window_down; NULL where the table has none) for list_count_days.
CREATE FUNCTION list_counts_key(published_column text, published_value int, access_column text, creator_column text,
                                scope_column text, scope_id_column text, up_column text, down_column text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format('%s AS scope, %s AS scope_id, %s AS created_by, (%I = %s) AS published, %s AS access, %s AS ends, %s AS window_up, %s AS window_down',
    CASE WHEN scope_column = '' THEN quote_literal('') ELSE quote_ident(scope_column) END,
    CASE WHEN scope_id_column = '' THEN '0' ELSE quote_ident(scope_id_column) END,
    CASE WHEN creator_column = '' THEN 'NULL::int' ELSE quote_ident(creator_column) END,
    published_column, published_value,
    CASE WHEN access_column = '' THEN '0' ELSE quote_ident(access_column) END,
    CASE WHEN down_column = '' THEN 'false' ELSE format('(%I IS NOT NULL)', down_column) END,
    CASE WHEN up_column = '' THEN 'NULL::timestamp' ELSE quote_ident(up_column) END,
    CASE WHEN down_column = '' THEN 'NULL::timestamp' ELSE quote_ident(down_column) END)
$$;

-- The statement that adds `changes` (rows of keys and deltas) to the day buckets: a published row counts
-- on the day its window opens and, if it has an end, on the day it closes; a row whose window is empty
-- (down <= up) is never shown and counts on neither. Days before yesterday (UTC, by the database's clock)
-- are skipped: a total reads only the days after today, and the day's margin lets the server's clock
-- differ from the database's by hours. Sorted, as list_counts_upsert, so concurrent writers lock the
-- buckets they share in the same order.
CREATE FUNCTION list_count_days_upsert(table_name text, changes text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_count_days AS c (table_name, scope, scope_id, created_by, day, edge, access, rows)
    SELECT %L, d.scope, d.scope_id, w.who, e.day, e.edge, d.access, sum(d.delta)::int
      FROM (%s) d
     CROSS JOIN LATERAL (VALUES ('up', d.window_up::date, d.window_down IS NULL OR d.window_down > d.window_up),
                                ('down', d.window_down::date, d.window_down > d.window_up)) AS e(edge, day, counted)
     CROSS JOIN LATERAL (VALUES (d.created_by), (0)) AS w(who)
     WHERE d.published AND e.counted AND e.day >= (now() AT TIME ZONE 'UTC')::date - 1 AND w.who IS NOT NULL
     GROUP BY d.scope, d.scope_id, w.who, e.day, e.edge, d.access
    HAVING sum(d.delta) <> 0
     ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (table_name, scope, scope_id, created_by, day, edge, access) DO UPDATE SET rows = c.rows + excluded.rows
  $sql$, table_name, changes)
$$;

-- Arguments: the published column and value, then the access, creator, scope, scope id, publishing-start
-- and publishing-end columns ('' where the table has none).
CREATE OR REPLACE FUNCTION list_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key text := list_counts_key(TG_ARGV[0], TG_ARGV[1]::int, TG_ARGV[2], TG_ARGV[3], TG_ARGV[4], TG_ARGV[5], TG_ARGV[6], TG_ARGV[7]);
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %s, 1 AS delta FROM new_rows', key)
    WHEN 'DELETE' THEN format('SELECT %s, -1 AS delta FROM old_rows', key)
    ELSE format('SELECT %1$s, 1 AS delta FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', key) END;
BEGIN
  EXECUTE list_counts_upsert(TG_TABLE_NAME, changes);
  IF TG_ARGV[6] <> '' THEN
    EXECUTE list_count_days_upsert(TG_TABLE_NAME, changes);
  END IF;
  RETURN NULL;
END $$;

-- Installs the triggers on a listed table and counts the rows it holds already.
CREATE FUNCTION list_counts_track(listed text, published_column text, published_value int, access_column text, creator_column text,
                                  scope_column text, scope_id_column text, up_column text, down_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  arguments text := format('%L, %L, %L, %L, %L, %L, %L, %L', published_column, published_value, access_column, creator_column,
                           scope_column, scope_id_column, up_column, down_column);
  existing text := format('SELECT %s, 1 AS delta FROM %I',
    list_counts_key(published_column, published_value, access_column, creator_column, scope_column, scope_id_column, up_column, down_column), listed);
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_insert', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_update', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_delete', listed, arguments);
  DELETE FROM list_counts WHERE table_name = listed;
  EXECUTE list_counts_upsert(listed, existing);
  DELETE FROM list_count_days WHERE table_name = listed;
  IF up_column <> '' THEN
    EXECUTE list_count_days_upsert(listed, existing);
  END IF;
END $$;

-- The listed tables, as their list specs declare them (src/<area>/service.ts; test/totals.test.ts checks both agree).
SELECT list_counts_track('wiki_pages', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '', '');
SELECT list_counts_track('blog_entries', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', 'publish_up', 'publish_down');
SELECT list_counts_track('citations', 'published', 1, '', '', '', '', '', '');
