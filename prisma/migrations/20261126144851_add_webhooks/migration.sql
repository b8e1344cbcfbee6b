-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[],
    "scope" TEXT NOT NULL,
    "scope_id" INTEGER NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMP(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "created_by" INTEGER,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "event_id" BIGINT NOT NULL,
    "event_type" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL,
    "lease_until" TIMESTAMP(3),
    "retry_from" TIMESTAMP(3) NOT NULL,
    "replay_requested" BOOLEAN NOT NULL DEFAULT false,
    "last_status" INTEGER,
    "last_error" TEXT,
    "created" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMP(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "attempted_at" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "status" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "response" TEXT NOT NULL DEFAULT '',
    "error" TEXT,
    "replay" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_scope_scope_id_id_idx" ON "webhook_endpoints"("scope", "scope_id", "id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_event_types_idx" ON "webhook_endpoints" USING GIN ("event_types");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_attempt_at_idx" ON "webhook_deliveries"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_id_idx" ON "webhook_deliveries"("endpoint_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_completed_at_idx" ON "webhook_deliveries"("completed_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_id_key" ON "webhook_deliveries"("endpoint_id", "event_id");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_id_idx" ON "webhook_attempts"("delivery_id", "id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The states and outcomes the code writes, and nothing else.
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_state_check" CHECK ("state" IN ('pending', 'delivered', 'failed'));
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_outcome_check" CHECK ("outcome" IN ('delivered', 'http_error', 'timeout', 'refused', 'network'));
