-- Documented values only: a row whose access, state or published value no area declares (imported by
-- hand, say) would have no GraphQL enum value and no visibility rule. CHECK constraints cannot be written
-- in the Prisma schema; migrations own them (scripts/check-migrations.ts leaves them out of the comparison).
-- The numbers are those of src/wiki/service.ts WIKI_ACCESS, src/blog/service.ts BLOG_ACCESS and the
-- services' state/published rules.
ALTER TABLE "wiki_pages" ADD CONSTRAINT "wiki_pages_access_check" CHECK ("access" IN (0, 1, 4));
ALTER TABLE "wiki_pages" ADD CONSTRAINT "wiki_pages_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "blog_entries" ADD CONSTRAINT "blog_entries_access_check" CHECK ("access" IN (0, 1, 2, 5));
ALTER TABLE "blog_entries" ADD CONSTRAINT "blog_entries_state_check" CHECK ("state" IN (0, 1));
ALTER TABLE "citations" ADD CONSTRAINT "citations_published_check" CHECK ("published" IN (0, 1));
