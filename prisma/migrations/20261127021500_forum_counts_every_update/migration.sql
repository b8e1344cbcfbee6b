-- Hand-written (no schema change): the forum's counts move with every change of what they key on, and a
-- category's posts follow it into another section.

-- forum_posts_count fired on UPDATE OF category_id, thread_id, access, state, starter: PostgreSQL fires such
-- a trigger only for the columns an UPDATE names, and writes set own_state (the BEFORE trigger derives
-- state from it), so publishing or unpublishing a post never moved the counts, and later changes of access
-- took from rows it had never added to (negative counts). Now it fires on every update whose counted key
-- differs.
DROP TRIGGER forum_posts_count ON forum_posts;
CREATE TRIGGER forum_posts_count AFTER INSERT OR DELETE ON forum_posts
  FOR EACH ROW EXECUTE FUNCTION forum_posts_count();
CREATE TRIGGER forum_posts_count_update AFTER UPDATE ON forum_posts FOR EACH ROW
  WHEN ((OLD.category_id, OLD.thread_id, OLD.access, OLD.state, OLD.starter) IS DISTINCT FROM (NEW.category_id, NEW.thread_id, NEW.access, NEW.state, NEW.starter))
  EXECUTE FUNCTION forum_posts_count();

-- The counts as the rows say, replacing what the old trigger left.
DELETE FROM forum_counts;
INSERT INTO forum_counts (category_id, thread_id, access, state, threads, posts)
  SELECT category_id, thread_id, access, state, 0, count(*)::int FROM forum_posts WHERE thread_id <> 0 GROUP BY category_id, thread_id, access, state
  UNION ALL
  SELECT category_id, 0, access, state, sum(starter)::int, count(*)::int FROM forum_posts GROUP BY category_id, access, state;

-- A category moved to another section takes its posts along (their section_id is the section filter's and
-- a section deletion's key); the move runs in the category update's transaction.
CREATE FUNCTION forum_categories_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE forum_posts SET section_id = NEW.section_id WHERE category_id = NEW.id AND section_id IS DISTINCT FROM NEW.section_id;
  RETURN NULL;
END $$;
CREATE TRIGGER forum_categories_moved AFTER UPDATE OF section_id ON forum_categories FOR EACH ROW
  WHEN (OLD.section_id IS DISTINCT FROM NEW.section_id)
  EXECUTE FUNCTION forum_categories_moved();

-- Posts a moved category left behind.
UPDATE forum_posts p SET section_id = c.section_id FROM forum_categories c WHERE c.id = p.category_id AND p.section_id IS DISTINCT FROM c.section_id;
