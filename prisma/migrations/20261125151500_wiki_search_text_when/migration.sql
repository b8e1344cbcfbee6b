-- wiki_pages.search_text (the current revision's text in lower case) is kept by a trigger for writers that
-- do not set it. The wiki's own writes set it in their statement (src/wiki/service.ts), where the trigger
-- cannot see the revision the same statement inserts: on those it fired for nothing, one lookup per row
-- on every create and every new revision. It now fires only where a write left the column to it: an
-- insert with a revision and no text, an update of current_revision_id that did not set the text (or set it
-- empty).
DROP TRIGGER wiki_pages_search_text ON wiki_pages;
CREATE TRIGGER wiki_pages_search_text_insert BEFORE INSERT ON wiki_pages
  FOR EACH ROW WHEN (NEW.current_revision_id IS NOT NULL AND NEW.search_text = '')
  EXECUTE FUNCTION wiki_pages_search_text();
CREATE TRIGGER wiki_pages_search_text_update BEFORE UPDATE OF current_revision_id ON wiki_pages
  FOR EACH ROW WHEN (NEW.current_revision_id IS DISTINCT FROM OLD.current_revision_id AND (NEW.search_text IS NOT DISTINCT FROM OLD.search_text OR NEW.search_text = ''))
  EXECUTE FUNCTION wiki_pages_search_text();
