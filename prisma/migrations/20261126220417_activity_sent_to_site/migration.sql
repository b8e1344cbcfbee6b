-- AlterTable
ALTER TABLE "activity" ADD COLUMN     "sent_to_site" INTEGER NOT NULL DEFAULT 0;


-- Written by hand: what the Prisma schema cannot say (docs/adding-an-area.md, "Counters").
-- An entry sent to the site (site:0 among its recipients) is public; the column follows `recipients`, which
-- every write of the recipients rewrites, so the list's counters can count public entries per scope.
CREATE FUNCTION activity_sent_to_site() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.sent_to_site := CASE WHEN (',' || NEW.recipients || ',') LIKE '%,site:0,%' THEN 1 ELSE 0 END;
  RETURN NEW;
END $$;
CREATE TRIGGER activity_sent_to_site BEFORE INSERT OR UPDATE OF recipients ON activity FOR EACH ROW EXECUTE FUNCTION activity_sent_to_site();
UPDATE activity SET sent_to_site = CASE WHEN (',' || recipients || ',') LIKE '%,site:0,%' THEN 1 ELSE 0 END;

-- The counts of a scope's entries, sent to the site or not, per creator: a list's total without counting rows
-- (ACTIVITY_RECORDS.audienceTotal, src/activity/service.ts).
SELECT list_counts_track('activity', 'sent_to_site', 1, '', 'created_by', 'scope', 'scope_id', '', '');
