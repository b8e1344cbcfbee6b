-- CreateTable
CREATE TABLE "forum_sections" (
    "id" SERIAL NOT NULL,
    "alias" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "published" INTEGER NOT NULL DEFAULT 1,
    "ordering" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forum_sections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "forum_categories" (
    "id" SERIAL NOT NULL,
    "section_id" INTEGER NOT NULL,
    "alias" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "closed" INTEGER NOT NULL DEFAULT 0,
    "is_default" INTEGER NOT NULL DEFAULT 0,
    "published" INTEGER NOT NULL DEFAULT 1,
    "ordering" INTEGER NOT NULL DEFAULT 0,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forum_categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "forum_posts" (
    "id" SERIAL NOT NULL,
    "category_id" INTEGER NOT NULL,
    "section_id" INTEGER NOT NULL DEFAULT 0,
    "thread_id" INTEGER NOT NULL DEFAULT 0,
    "starter" INTEGER NOT NULL DEFAULT 0,
    "parent_id" INTEGER NOT NULL DEFAULT 0,
    "title" TEXT NOT NULL DEFAULT '',
    "comment" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'site',
    "scope_id" INTEGER NOT NULL DEFAULT 0,
    "state" INTEGER NOT NULL DEFAULT 1,
    "own_state" INTEGER NOT NULL DEFAULT 1,
    "access" INTEGER NOT NULL DEFAULT 1,
    "anonymous" INTEGER NOT NULL DEFAULT 0,
    "sticky" INTEGER NOT NULL DEFAULT 0,
    "closed" INTEGER NOT NULL DEFAULT 0,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" INTEGER NOT NULL,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_activity" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forum_posts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "forum_counts" (
    "category_id" INTEGER NOT NULL,
    "thread_id" INTEGER NOT NULL,
    "access" INTEGER NOT NULL,
    "state" INTEGER NOT NULL,
    "threads" INTEGER NOT NULL DEFAULT 0,
    "posts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "forum_counts_pkey" PRIMARY KEY ("category_id","thread_id","access","state")
);

-- CreateTable
CREATE TABLE "forum_user_categories" (
    "user_id" INTEGER NOT NULL,
    "category_id" INTEGER NOT NULL,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forum_user_categories_pkey" PRIMARY KEY ("user_id","category_id")
);

-- CreateIndex
CREATE INDEX "forum_sections_scope_scope_id_id_idx" ON "forum_sections"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "forum_sections_scope_scope_id_ordering_id_idx" ON "forum_sections"("scope", "scope_id", "ordering", "id");

-- CreateIndex
CREATE INDEX "forum_sections_scope_scope_id_title_id_idx" ON "forum_sections"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE UNIQUE INDEX "forum_sections_scope_scope_id_alias_key" ON "forum_sections"("scope", "scope_id", "alias");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_id_idx" ON "forum_categories"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_section_id_id_idx" ON "forum_categories"("scope", "scope_id", "section_id", "id");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_closed_id_idx" ON "forum_categories"("scope", "scope_id", "closed", "id");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_section_id_closed_id_idx" ON "forum_categories"("scope", "scope_id", "section_id", "closed", "id");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_title_id_idx" ON "forum_categories"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE INDEX "forum_categories_scope_scope_id_ordering_id_idx" ON "forum_categories"("scope", "scope_id", "ordering", "id");

-- CreateIndex
CREATE INDEX "forum_categories_title_trgm_idx" ON "forum_categories" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "forum_categories_scope_scope_id_alias_key" ON "forum_categories"("scope", "scope_id", "alias");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_id_idx" ON "forum_posts"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_created_id_idx" ON "forum_posts"("scope", "scope_id", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_modified_id_idx" ON "forum_posts"("scope", "scope_id", "modified", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_last_activity_id_idx" ON "forum_posts"("scope", "scope_id", "last_activity", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_title_id_idx" ON "forum_posts"("scope", "scope_id", "title", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_id_idx" ON "forum_posts"("scope", "scope_id", "category_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_created_id_idx" ON "forum_posts"("scope", "scope_id", "category_id", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_last_activity_id_idx" ON "forum_posts"("scope", "scope_id", "category_id", "last_activity", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_section_id_id_idx" ON "forum_posts"("scope", "scope_id", "section_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_section_id_created_id_idx" ON "forum_posts"("scope", "scope_id", "section_id", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_thread_id_id_idx" ON "forum_posts"("scope", "scope_id", "thread_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_thread_id_created_id_idx" ON "forum_posts"("scope", "scope_id", "thread_id", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_parent_id_id_idx" ON "forum_posts"("scope", "scope_id", "parent_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_parent_id_created_id_idx" ON "forum_posts"("scope", "scope_id", "parent_id", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_starter_id_idx" ON "forum_posts"("scope", "scope_id", "starter", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_starter_created_id_idx" ON "forum_posts"("scope", "scope_id", "starter", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_starter_last_activity_id_idx" ON "forum_posts"("scope", "scope_id", "starter", "last_activity", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_starter_id_idx" ON "forum_posts"("scope", "scope_id", "category_id", "starter", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_starter_created_id_idx" ON "forum_posts"("scope", "scope_id", "category_id", "starter", "created", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_category_id_starter_last_activit_idx" ON "forum_posts"("scope", "scope_id", "category_id", "starter", "last_activity", "id");

-- CreateIndex
CREATE INDEX "forum_posts_scope_scope_id_section_id_starter_id_idx" ON "forum_posts"("scope", "scope_id", "section_id", "starter", "id");

-- CreateIndex
CREATE INDEX "forum_posts_thread_id_id_idx" ON "forum_posts"("thread_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_category_id_id_idx" ON "forum_posts"("category_id", "id");

-- CreateIndex
CREATE INDEX "forum_posts_title_trgm_idx" ON "forum_posts" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "forum_posts_comment_trgm_idx" ON "forum_posts" USING GIN ("comment" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "forum_user_categories_category_id_user_id_idx" ON "forum_user_categories"("category_id", "user_id");

-- AddForeignKey
ALTER TABLE "forum_categories" ADD CONSTRAINT "forum_categories_section_id_fkey" FOREIGN KEY ("section_id") REFERENCES "forum_sections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forum_posts" ADD CONSTRAINT "forum_posts_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "forum_categories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forum_posts" ADD CONSTRAINT "forum_posts_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forum_user_categories" ADD CONSTRAINT "forum_user_categories_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forum_user_categories" ADD CONSTRAINT "forum_user_categories_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "forum_categories"("id") ON DELETE CASCADE ON UPDATE CASCADE;



-- The documented numbers only.
ALTER TABLE "forum_posts" ADD CONSTRAINT "forum_posts_access_check" CHECK ("access" IN (1, 2, 5));
ALTER TABLE "forum_posts" ADD CONSTRAINT "forum_posts_state_check" CHECK ("state" IN (0, 1) AND "own_state" IN (0, 1));
ALTER TABLE "forum_posts" ADD CONSTRAINT "forum_posts_flags_check" CHECK ("anonymous" IN (0, 1) AND "sticky" IN (0, 1) AND "closed" IN (0, 1) AND "starter" IN (0, 1));
ALTER TABLE "forum_categories" ADD CONSTRAINT "forum_categories_closed_check" CHECK ("closed" IN (0, 1));

-- A starter is its own thread; a reply takes its thread's access when that is stricter and is published
-- (state) only while its own state and its thread starter's are (own_state) (replies inherit what the starter hides); sticky/closed are the
-- starter's only.
CREATE FUNCTION forum_posts_inherit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  thread_row forum_posts%ROWTYPE;
BEGIN
  IF NEW.starter = 1 THEN
    NEW.thread_id := NEW.id;
    NEW.parent_id := 0;
    NEW.state := NEW.own_state;
  ELSE
    SELECT * INTO thread_row FROM forum_posts WHERE id = NEW.thread_id;
    IF FOUND THEN
      NEW.access := greatest(NEW.access, thread_row.access);
      NEW.state := CASE WHEN NEW.own_state = 1 AND thread_row.own_state = 1 THEN 1 ELSE 0 END;
    ELSE
      NEW.state := NEW.own_state;
    END IF;
    NEW.sticky := 0;
    NEW.closed := 0;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER forum_posts_inherit BEFORE INSERT OR UPDATE ON forum_posts FOR EACH ROW EXECUTE FUNCTION forum_posts_inherit();

-- A starter's state or access reaches its replies.
CREATE FUNCTION forum_posts_thread_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE forum_posts SET access = greatest(access, NEW.access) WHERE thread_id = NEW.id AND starter = 0;
  RETURN NULL;
END $$;
CREATE TRIGGER forum_posts_thread_changed AFTER UPDATE OF own_state, state, access ON forum_posts FOR EACH ROW
  WHEN (NEW.starter = 1 AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.access IS DISTINCT FROM NEW.access))
  EXECUTE FUNCTION forum_posts_thread_changed();

-- A deleted starter takes its replies.
CREATE FUNCTION forum_posts_thread_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM forum_posts WHERE thread_id = OLD.id AND starter = 0;
  RETURN NULL;
END $$;
CREATE TRIGGER forum_posts_thread_deleted AFTER DELETE ON forum_posts FOR EACH ROW WHEN (OLD.starter = 1)
  EXECUTE FUNCTION forum_posts_thread_deleted();

-- The thread's and category's counts, per access level and state, as the write happens; a reply
-- moves its thread's last_activity.
CREATE FUNCTION forum_counts_apply(category int, thread int, level int, published int, is_starter int, delta int) RETURNS void LANGUAGE sql AS $$
  INSERT INTO forum_counts (category_id, thread_id, access, state, threads, posts)
  SELECT category, thread, level, published, 0, delta WHERE thread <> 0
  UNION ALL SELECT category, 0, level, published, is_starter * delta, delta
  ON CONFLICT (category_id, thread_id, access, state)
  DO UPDATE SET threads = forum_counts.threads + EXCLUDED.threads, posts = forum_counts.posts + EXCLUDED.posts
$$;
CREATE FUNCTION forum_posts_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM forum_counts_apply(OLD.category_id, OLD.thread_id, OLD.access, OLD.state, OLD.starter, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM forum_counts_apply(NEW.category_id, NEW.thread_id, NEW.access, NEW.state, NEW.starter, 1);
  END IF;
  IF TG_OP = 'INSERT' AND NEW.starter = 0 THEN
    UPDATE forum_posts SET last_activity = NEW.created WHERE id = NEW.thread_id AND last_activity < NEW.created;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER forum_posts_count AFTER INSERT OR DELETE OR UPDATE OF category_id, thread_id, access, state, starter ON forum_posts
  FOR EACH ROW EXECUTE FUNCTION forum_posts_count();

SELECT list_counts_track('forum_posts', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '', '');
SELECT list_versions_track('forum_posts', 'scope', 'scope_id');
SELECT list_counts_track('forum_categories', 'published', 1, '', '', 'scope', 'scope_id', '', '');
SELECT list_versions_track('forum_categories', 'scope', 'scope_id');
SELECT list_counts_track('forum_sections', 'published', 1, '', '', 'scope', 'scope_id', '', '');
SELECT list_versions_track('forum_sections', 'scope', 'scope_id');

-- A fresh site has a usable forum: its default section and category (category_id 0 posts there).
INSERT INTO "forum_sections" ("alias", "title", "scope", "scope_id") VALUES ('general', 'General', 'site', 0);
INSERT INTO "forum_categories" ("section_id", "alias", "title", "scope", "scope_id", "is_default")
  SELECT id, 'general', 'General', 'site', 0, 1 FROM "forum_sections" WHERE alias = 'general' AND scope = 'site' AND scope_id = 0;
