-- AlterTable
ALTER TABLE "activity" ADD COLUMN     "candidates" TEXT,
ADD COLUMN     "source_area" TEXT,
ADD COLUMN     "source_record" INTEGER,
ADD COLUMN     "revise" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "activity_source_area_source_record_idx" ON "activity"("source_area", "source_record");

-- CreateIndex
CREATE INDEX "activity_revise_id_idx" ON "activity"("revise", "id");


-- Written by hand: the entries written before, for the events still in the outbox (a purged event's entry
-- keeps no source: it no longer follows its record). Their recipients were the readable candidates then.
UPDATE "activity" a SET "source_area" = o.area, "source_record" = o.record_id, "candidates" = a.recipients
  FROM "outbox" o WHERE o.id = a.source_event AND a.source_event IS NOT NULL;
