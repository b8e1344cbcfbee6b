import crypto from "node:crypto";
import type { Request, Response } from "express";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { ApiError } from "../common/errors.js";
import type { RequestContext } from "../common/context.js";
import { sqlClientOf } from "../db/sql.js";
import { outboxWritten } from "../common/outbox.js";

/**
 * Safe retries and conditional writes on /api (docs/decisions.md, "Retries and conditional writes").
 *
 * Idempotency-Key (POST): the request runs in one transaction (`runRemembered`), in which the write path
 * claims the key and the answer is stored with it; the answer is sent once that has committed. So a key
 * is never kept without its answer, nor an answer without its write: a retry with the key gets the stored
 * answer (`Idempotent-Replayed: true`); one while the first is still running gets 409; the key with
 * another request (method, path, body) gets 422. Keys belong to the caller and last a day.
 *
 * If-Match (PUT, PATCH, DELETE): the write path compares it with the record's version on the locked row;
 * a mismatch is 412 and changes nothing. Record answers carry that version as their ETag.
 */

/** How long a key is kept and honoured. */
export const IDEMPOTENCY_KEY_HOURS = 24;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What the facade does before running a row: nothing, or answer the stored reply of an earlier request. */
export type Precondition = { replay: { status: number; answer: string } } | null;

/**
 * Reads Idempotency-Key and If-Match into the request context; answers a replay when the key was used
 * before with an answer. Only signed-in POSTs take keys (every write needs a caller).
 */
export async function readWriteConditions(req: Request, ctx: RequestContext, db: PrismaClient): Promise<Precondition> {
  const ifMatch = req.get("If-Match");
  if (ifMatch && ["PUT", "PATCH", "DELETE"].includes(req.method)) ctx.ifMatch = ifMatch.split(",").map((tag) => tag.trim()).filter(Boolean);
  const key = req.get("Idempotency-Key");
  if (key === undefined || req.method !== "POST" || !ctx.viewer.user) return null;
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError(400, 'Invalid header "Idempotency-Key": must be 1 to 255 visible ASCII characters', [
      { parameter: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" },
    ]);
  }
  const fingerprint = crypto
    .createHash("sha256")
    .update(canonicalJson([req.method, req.originalUrl, req.body ?? null]))
    .digest("base64url");
  // A key past its day is forgotten here, so the write path's claim of it can be a plain INSERT.
  const [stored] = await sqlClientOf(db).query<{ fingerprint: string; status: number | null; answer: string | null; recordId: number | null }>(Prisma.sql`
    WITH expired AS (
      DELETE FROM idempotency_keys
       WHERE user_id = ${ctx.viewer.user.id} AND key = ${key} AND created <= (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS}))
    SELECT fingerprint, status, answer, record_id AS "recordId" FROM idempotency_keys
     WHERE user_id = ${ctx.viewer.user.id} AND key = ${key} AND created > (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS})`);
  if (stored && stored.fingerprint !== fingerprint) {
    throw new ApiError(422, "This Idempotency-Key was used with another request (method, path or body): use a new key for a new request.", [
      { parameter: "Idempotency-Key", message: "was used with another request" },
    ]);
  }
  if (stored?.status != null && stored.answer != null) return { replay: { status: stored.status, answer: stored.answer } };
  if (stored) {
    // Claimed but not answered: still running, or its answer was lost after the write was made (record_id says which).
    const made = stored.recordId ? ` Its write was made (record ${stored.recordId}); if no answer comes, read that record.` : "";
    throw new ApiError(409, `A request with this Idempotency-Key is still being answered; retry shortly.${made}`, [{ parameter: "Idempotency-Key", message: "is in use" }]);
  }
  ctx.idempotency = { key, fingerprint };
  return null;
}

/**
 * JSON with every object's keys sorted, at every depth: the same fields in another order (a client that
 * builds its body differently on a retry) give the same text, so the same fingerprint. Array order counts.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** Sends a stored answer again. */
export function replay(res: Response, stored: { status: number; answer: string }): void {
  res.set("Idempotent-Replayed", "true");
  res.status(stored.status);
  if (stored.answer === "") res.end();
  else res.type("application/json").send(stored.answer);
}

/**
 * Runs the request's operation (`run`, which answers with the function that sends its reply through `res`)
 * and sends the reply. A signed-in POST with an Idempotency-Key runs in ONE transaction (`ctx.tx`: the
 * kit's statements join it): the write, which claims the key, then its reply stored with the key; the reply
 * leaves only after COMMIT. A refused write rolls back and keeps no key; a commit whose outcome is unknown
 * leaves either both or neither, so the retry gets the reply or makes the write.
 */
export async function runRemembered(res: Response, ctx: RequestContext, run: () => Promise<() => void>): Promise<void> {
  const claim = ctx.idempotency;
  if (!claim) return (await run())();
  const reply = await sqlClientOf(ctx.db).transaction(async (client) => {
    ctx.tx = client;
    try {
      const held = heldReply(res, await run());
      if (claim.claimed) {
        await client.query(
          Prisma.sql`UPDATE idempotency_keys SET status = ${res.statusCode}, answer = ${held.body} WHERE user_id = ${ctx.viewer.user!.id} AND key = ${claim.key}`,
        );
      }
      return held;
    } finally {
      ctx.tx = undefined;
    }
  });
  outboxWritten(ctx.db);
  reply.send();
}

/** What `send` writes through `res`, held back: its body, and how to send it when the time comes. */
function heldReply(res: Response, send: () => void): { body: string; send(): void } {
  const original = { send: res.send.bind(res), end: res.end.bind(res) };
  let body: string | undefined;
  res.send = ((sent?: unknown) => {
    body = typeof sent === "string" ? sent : Buffer.isBuffer(sent) ? sent.toString("utf8") : JSON.stringify(sent ?? "");
    return res;
  }) as Response["send"];
  res.end = (() => {
    body ??= "";
    return res;
  }) as unknown as Response["end"];
  try {
    send();
  } finally {
    res.send = original.send;
    res.end = original.end;
  }
  const held = body ?? "";
  return { body: held, send: () => void (held ? original.send(held) : original.end()) };
}

/** Deletes keys past their day (the purge timer, src/auth/purge.ts). */
export async function deleteExpiredIdempotencyKeys(db: PrismaClient): Promise<number> {
  const [deleted] = await sqlClientOf(db).query<{ rows: number }>(Prisma.sql`
    WITH gone AS (DELETE FROM idempotency_keys WHERE created <= (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS}) RETURNING 1)
    SELECT count(*)::int AS rows FROM gone`);
  return deleted!.rows;
}
