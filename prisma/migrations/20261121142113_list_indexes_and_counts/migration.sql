-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- DropIndex
DROP INDEX "blog_entries_state_publish_up_idx";

-- DropIndex
DROP INDEX "citations_published_created_idx";

-- DropIndex
DROP INDEX "wiki_pages_state_access_idx";

-- AlterTable
ALTER TABLE "wiki_pages" ADD COLUMN     "revision_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "search_text" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "list_counts" (
    "table_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "created_by" INTEGER NOT NULL,
    "published" BOOLEAN NOT NULL,
    "access" INTEGER NOT NULL,
    "ends" BOOLEAN NOT NULL,
    "rows" INTEGER NOT NULL,

    CONSTRAINT "list_counts_pkey" PRIMARY KEY ("table_name","scope","scope_id","created_by","published","access","ends")
);

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_id_idx" ON "blog_entries"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_title_id_idx" ON "blog_entries"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_alias_id_idx" ON "blog_entries"("scope", "scope_id", "alias", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_created_id_idx" ON "blog_entries"("scope", "scope_id", "created", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_modified_id_idx" ON "blog_entries"("scope", "scope_id", "modified", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_publish_up_id_idx" ON "blog_entries"("scope", "scope_id", "publish_up", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_publish_down_id_idx" ON "blog_entries"("scope", "scope_id", "publish_down", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_hits_id_idx" ON "blog_entries"("scope", "scope_id", "hits", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_state_id_idx" ON "blog_entries"("scope", "scope_id", "state", "id");

-- CreateIndex
CREATE INDEX "blog_entries_scope_scope_id_access_id_idx" ON "blog_entries"("scope", "scope_id", "access", "id");

-- CreateIndex
CREATE INDEX "blog_entries_title_trgm_idx" ON "blog_entries" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "blog_entries_content_trgm_idx" ON "blog_entries" USING GIN ("content" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "citations_title_id_idx" ON "citations"("title", "id");

-- CreateIndex
CREATE INDEX "citations_year_id_idx" ON "citations"("year", "id");

-- CreateIndex
CREATE INDEX "citations_type_id_idx" ON "citations"("type", "id");

-- CreateIndex
CREATE INDEX "citations_journal_id_idx" ON "citations"("journal", "id");

-- CreateIndex
CREATE INDEX "citations_created_id_idx" ON "citations"("created", "id");

-- CreateIndex
CREATE INDEX "citations_modified_id_idx" ON "citations"("modified", "id");

-- CreateIndex
CREATE INDEX "citations_title_trgm_idx" ON "citations" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "citations_authors_trgm_idx" ON "citations" USING GIN ("authors" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "citations_journal_trgm_idx" ON "citations" USING GIN ("journal" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "citations_booktitle_trgm_idx" ON "citations" USING GIN ("booktitle" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_id_idx" ON "wiki_pages"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_title_id_idx" ON "wiki_pages"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_pagename_id_idx" ON "wiki_pages"("scope", "scope_id", "pagename", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_created_id_idx" ON "wiki_pages"("scope", "scope_id", "created", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_modified_id_idx" ON "wiki_pages"("scope", "scope_id", "modified", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_state_id_idx" ON "wiki_pages"("scope", "scope_id", "state", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_scope_scope_id_access_id_idx" ON "wiki_pages"("scope", "scope_id", "access", "id");

-- CreateIndex
CREATE INDEX "wiki_pages_title_trgm_idx" ON "wiki_pages" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "wiki_pages_search_text_trgm_idx" ON "wiki_pages" USING GIN ("search_text" gin_trgm_ops);


-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").

-- wiki_pages.revision_count follows the approved revisions; statement triggers, so a bulk insert (the
-- benchmark's seed) updates each page once per statement, not once per revision.
CREATE FUNCTION wiki_revisions_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE wiki_pages p SET revision_count = p.revision_count + d.n
      FROM (SELECT page_id, count(*)::int AS n FROM new_rows WHERE approved GROUP BY page_id) d WHERE p.id = d.page_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE wiki_pages p SET revision_count = p.revision_count - d.n
      FROM (SELECT page_id, count(*)::int AS n FROM old_rows WHERE approved GROUP BY page_id) d WHERE p.id = d.page_id;
  ELSE
    UPDATE wiki_pages p SET revision_count = p.revision_count + d.n
      FROM (SELECT page_id, sum(delta)::int AS n
              FROM (SELECT page_id, 1 AS delta FROM new_rows WHERE approved UNION ALL SELECT page_id, -1 FROM old_rows WHERE approved) changes
             GROUP BY page_id HAVING sum(delta) <> 0) d
     WHERE p.id = d.page_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER wiki_revisions_count_insert AFTER INSERT ON wiki_revisions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wiki_revisions_count();
CREATE TRIGGER wiki_revisions_count_update AFTER UPDATE ON wiki_revisions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wiki_revisions_count();
CREATE TRIGGER wiki_revisions_count_delete AFTER DELETE ON wiki_revisions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wiki_revisions_count();
UPDATE wiki_pages p SET revision_count = d.n
  FROM (SELECT page_id, count(*)::int AS n FROM wiki_revisions WHERE approved GROUP BY page_id) d WHERE p.id = d.page_id;

-- wiki_pages.search_text is the current revision's text in lower case: `search` matches it with LIKE
-- against the lower-cased pattern (what ILIKE does, without lower-casing every candidate's text on each
-- search). A page inserted in the same statement as its revisions (the benchmark's seed) cannot see
-- them yet and keeps the search_text it was given.
CREATE FUNCTION wiki_pages_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.current_revision_id IS NULL THEN
    NEW.search_text := '';
  ELSE
    NEW.search_text := coalesce(lower((SELECT pagetext FROM wiki_revisions WHERE id = NEW.current_revision_id)), NEW.search_text);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER wiki_pages_search_text BEFORE INSERT OR UPDATE OF current_revision_id ON wiki_pages
  FOR EACH ROW EXECUTE FUNCTION wiki_pages_search_text();
UPDATE wiki_pages p SET search_text = lower(r.pagetext) FROM wiki_revisions r WHERE r.id = p.current_revision_id;

-- list_counts: one statement trigger per listed table and event adds the changed rows' keys (+1 for new
-- rows, -1 for old ones) to the counts of all creators (created_by 0) and of each row's creator, in the
-- writing transaction. Arguments: the published column and the value that means published, then the
-- access, creator, scope, scope id and publishing-end columns ('' where the table has none).
CREATE FUNCTION list_counts_key(published_column text, published_value int, access_column text, creator_column text,
                                scope_column text, scope_id_column text, ends_column text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format('%s AS scope, %s AS scope_id, %s AS created_by, (%I = %s) AS published, %s AS access, %s AS ends',
    CASE WHEN scope_column = '' THEN quote_literal('') ELSE quote_ident(scope_column) END,
    CASE WHEN scope_id_column = '' THEN '0' ELSE quote_ident(scope_id_column) END,
    CASE WHEN creator_column = '' THEN 'NULL::int' ELSE quote_ident(creator_column) END,
    published_column, published_value,
    CASE WHEN access_column = '' THEN '0' ELSE quote_ident(access_column) END,
    CASE WHEN ends_column = '' THEN 'false' ELSE format('(%I IS NOT NULL)', ends_column) END)
$$;

-- The statement that adds `changes` (rows of keys and deltas) to the counts. Sorted, so concurrent
-- writers lock the count rows they share in the same order.
CREATE FUNCTION list_counts_upsert(table_name text, changes text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($sql$
    INSERT INTO list_counts AS c (table_name, scope, scope_id, created_by, published, access, ends, rows)
    SELECT %L, scope, scope_id, who, published, access, ends, sum(delta)::int
      FROM (%s) d CROSS JOIN LATERAL (VALUES (d.created_by), (0)) AS w(who)
     WHERE who IS NOT NULL
     GROUP BY scope, scope_id, who, published, access, ends
    HAVING sum(delta) <> 0
     ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (table_name, scope, scope_id, created_by, published, access, ends) DO UPDATE SET rows = c.rows + excluded.rows
  $sql$, table_name, changes)
$$;

-- The transition tables (new_rows, old_rows) are visible to this function's own statements only, so it
-- runs the upsert itself.
CREATE FUNCTION list_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key text := list_counts_key(TG_ARGV[0], TG_ARGV[1]::int, TG_ARGV[2], TG_ARGV[3], TG_ARGV[4], TG_ARGV[5], TG_ARGV[6]);
BEGIN
  EXECUTE list_counts_upsert(TG_TABLE_NAME, CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %s, 1 AS delta FROM new_rows', key)
    WHEN 'DELETE' THEN format('SELECT %s, -1 AS delta FROM old_rows', key)
    ELSE format('SELECT %1$s, 1 AS delta FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', key) END);
  RETURN NULL;
END $$;

-- Installs the triggers on a listed table and counts the rows it holds already.
CREATE FUNCTION list_counts_track(listed text, published_column text, published_value int, access_column text, creator_column text,
                                  scope_column text, scope_id_column text, ends_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  arguments text := format('%L, %L, %L, %L, %L, %L, %L', published_column, published_value, access_column, creator_column,
                           scope_column, scope_id_column, ends_column);
BEGIN
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_insert', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_update', listed, arguments);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_trigger(%s)',
                 listed || '_list_counts_delete', listed, arguments);
  DELETE FROM list_counts WHERE table_name = listed;
  EXECUTE list_counts_upsert(listed, format('SELECT %s, 1 AS delta FROM %I',
    list_counts_key(published_column, published_value, access_column, creator_column, scope_column, scope_id_column, ends_column), listed));
END $$;

-- The listed tables, as their list specs declare them (src/<area>/service.ts; test/totals.test.ts checks both agree).
SELECT list_counts_track('wiki_pages', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '');
SELECT list_counts_track('blog_entries', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', 'publish_down');
SELECT list_counts_track('citations', 'published', 1, '', '', '', '', '');
