-- How far each timed event check has looked (src/events/windows.ts).
CREATE TABLE "outbox_schedules" (
    "name" TEXT NOT NULL,
    "checked_until" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "outbox_schedules_pkey" PRIMARY KEY ("name")
);
