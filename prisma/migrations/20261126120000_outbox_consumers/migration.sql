-- Each outbox consumer's cursor (src/events/dispatcher.ts).
CREATE TABLE "outbox_consumers" (
    "name" TEXT NOT NULL,
    "xid" BIGINT NOT NULL DEFAULT 0,
    "event_id" BIGINT NOT NULL DEFAULT 0,
    "delivered" BIGINT NOT NULL DEFAULT 0,
    "failures" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_consumers_pkey" PRIMARY KEY ("name")
);
