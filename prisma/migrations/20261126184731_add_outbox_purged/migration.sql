-- CreateTable
CREATE TABLE "outbox_purged" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "xid" BIGINT NOT NULL DEFAULT 0,
    "event_id" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "outbox_purged_pkey" PRIMARY KEY ("id")
);

-- One row: the purge's mark (src/events/dispatcher.ts).
ALTER TABLE "outbox_purged" ADD CONSTRAINT "outbox_purged_one_row" CHECK ("id" = 1);
