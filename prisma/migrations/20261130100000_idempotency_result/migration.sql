-- An Idempotency-Key's answer is the operation's execution result (src/execution/conditions.ts), for GraphQL and
-- REST alike, kept as text (json, not jsonb: the order of a result's keys is the order of its selection).
-- Keys answered before this migration have no result: a retry is told the record their write made (409), never
-- written twice. status and answer are no longer written.
ALTER TABLE "idempotency_keys" ADD COLUMN "result" JSON;
-- The answer's size in bytes: a caller's live keys hold at most so many bytes of answers together.
ALTER TABLE "idempotency_keys" ADD COLUMN "result_bytes" INTEGER;
-- The version of the record the answer was (its ETag), so a replay carries the ETag the first answer did.
ALTER TABLE "idempotency_keys" ADD COLUMN "record_version" TEXT;
