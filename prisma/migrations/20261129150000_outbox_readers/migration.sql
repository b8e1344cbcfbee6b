-- A deleted record's own readers on its deletion's event (docs/policy-design.md, D14): a hidden group's members
-- and invitees, whose memberships go with it. Empty for every other event, and for events written before it.
ALTER TABLE "outbox" ADD COLUMN "reader_ids" INTEGER[];
