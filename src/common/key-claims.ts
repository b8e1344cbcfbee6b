import { Prisma } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import { uniqueViolation } from "../db/errors.js";
import { conflict } from "./errors.js";
import type { RequestContext } from "./context.js";
import { NOW } from "./write-statements.js";

/**
 * A write's claim of the request's Idempotency-Key, in the write's own transaction (src/common/write-path.ts
 * makes it with the record's statement, src/execution/conditions.ts reads the key and stores the answer).
 */

/**
 * Claims the operation's Idempotency-Key for the record `id` in the open transaction (the execution core opens
 * one for a keyed request), for a write made outside createRecord/changeRecord (an account): its retry then
 * gets the stored answer, not a second attempt.
 */
export async function claimIdempotencyKey(ctx: RequestContext, id: number): Promise<void> {
  if (ctx.tx) await claimKey(ctx as RequestContext & { tx: SqlClient }, id);
}

/** The request's Idempotency-Key, claimed for record `id` in the write's transaction (a write that changed nothing too). */
export async function claimKey(tx: RequestContext & { tx: SqlClient }, id: number) {
  if (!tx.conditions.unclaimedKey) return;
  await tx.tx.query(claimStatement(tx, Prisma.sql`SELECT ${id}::int AS id`)).catch(idempotencyConflict);
  tx.conditions.claimKey();
}

/**
 * The claim of the request's Idempotency-Key for the record `record` (a SELECT yielding its `id`), made when
 * it yields a row. A live key already claimed is a unique violation. The record's id is kept with the key,
 * so a retry whose first answer was never stored can still be told which record the write made.
 */
export function claimStatement(ctx: RequestContext, record: Prisma.Sql): Prisma.Sql {
  const claim = ctx.conditions.unclaimedKey!;
  return Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, record_id, created)
    SELECT ${ctx.viewer.user!.id}, ${claim.key}, ${claim.fingerprint}, written.id, ${NOW} FROM (${record}) AS written`;
}

/** A concurrent request with the same key committed first: this one writes nothing and says so. */
export function idempotencyConflict(error: unknown): never {
  const fields = uniqueViolation(error)?.fields ?? [];
  if (fields.includes("user_id") && fields.includes("key")) {
    throw conflict("Idempotency-Key", "A request with this Idempotency-Key was made while this one ran; retry to get its answer.");
  }
  throw error;
}
