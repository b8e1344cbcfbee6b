-- The record's author on each event (docs/policy-design.md, D13): who is told of a deletion by someone else.
-- Events written before it have none: their authors are told as before (as anyone the record was visible to).
ALTER TABLE "outbox" ADD COLUMN "author_id" INTEGER;
