import { ApiError, badInput, conflict, forbidden, notFound } from "./errors.js";
import { CommitOutcomeUnknown, DatabaseBusy, isBusyDatabase, isConnectionLost, isPoolWaitTimeout } from "../db/sql.js";
import { foreignKeyViolation, prismaCode, uniqueViolation } from "../db/errors.js";

/*
 * The database's errors as the contract's: src/db says what went wrong (src/db/errors.ts, src/db/sql.ts)
 * and names no HTTP status; this file says what each one answers, for every surface (GraphQL's error mask in
 * src/execution/core.ts, the REST facade through it, the HTTP error handler in src/app.ts, the CLI).
 */

/**
 * The pool had no free connection within its wait: the server is busy, not broken. 503 with Retry-After,
 * on REST (src/app.ts sends the header) and GraphQL (yoga answers the `http` extension).
 */
export function serviceBusy(): ApiError {
  const error = new ApiError(503, "The server is busy; try again shortly.");
  error.extensions.http = { status: 503, headers: { "Retry-After": "1" } };
  return error;
}

/**
 * The connection was lost after COMMIT was sent: the write may or may not have been made, and only
 * reading it again can tell. Not 503 (a plain retry could write twice); an Idempotency-Key makes the
 * retry safe either way.
 */
export function outcomeUnknown(): ApiError {
  return new ApiError(500, "The database connection was lost while this write was committing, so whether it was made is unknown: read the record, or retry with the same Idempotency-Key.");
}

/**
 * The driver-level client's failures (src/db/sql.ts: DatabaseBusy, CommitOutcomeUnknown) as the ApiErrors
 * they are answered with, carrying the same cause; null for any other error.
 */
export function databaseFailure(error: unknown): ApiError | null {
  const answer = error instanceof DatabaseBusy ? serviceBusy() : error instanceof CommitOutcomeUnknown ? outcomeUnknown() : null;
  if (answer && (error as Error).cause !== undefined) Object.assign(answer, { cause: (error as Error).cause });
  return answer;
}

/**
 * A refusal a statement raised itself (`write_refused`, src/common/scopes.ts `scopeWriteCheck`) as the
 * ApiError it stands for; null for any other error. The driver's SQLSTATE is in `code` (pg and PGlite alike).
 */
export function raisedRefusal(error: unknown): ApiError | null {
  const raised = error as { code?: unknown; message?: string; detail?: string };
  if (raised?.code === "HG400") return badInput(raised.detail || "input", raised.message ?? "is not valid");
  if (raised?.code === "HG403") return forbidden(raised.message);
  return null;
}

/**
 * For `.catch()` on writes, turning what a concurrent request can cause into the contract's errors:
 * a unique-constraint violation that slipped past the service's own check becomes a 409 naming the
 * parameter; a record deleted in the meantime (P2025, or a foreign-key violation when something is
 * written under it) becomes a 404.
 */
export function writeFailure(options: { conflict?: { parameter: string; message: string; column: string }; missing?: string }) {
  return (error: unknown): never => {
    // Only a violation of the name's own constraint is the name's conflict (an unknown constraint counts).
    const unique = uniqueViolation(error);
    if (options.conflict && unique && (!unique.fields.length || unique.fields.includes(options.conflict.column))) {
      throw conflict(options.conflict.parameter, options.conflict.message);
    }
    if (options.missing && (prismaCode(error) === "P2025" || foreignKeyViolation(error))) throw notFound(options.missing);
    throw error;
  };
}

/**
 * Database errors that are the client's fault or a concurrent request's doing, as the contract's 4xx;
 * null for everything else. PostgreSQL text cannot hold NUL characters, and Prisma's query engine cannot
 * encode lone UTF-16 surrogates; the HTTP layers refuse both naming the parameter. A record another
 * request deleted while this one ran is gone (404), and one a write refers to is a conflict (409). This
 * is the backstop for every surface (GraphQL error masking, the REST facade, the HTTP error handler)
 * before an error is treated as a 500.
 */
export function clientFaultFromDatabase(error: unknown): ApiError | null {
  // Not the client's fault either, but not an internal error: the pool had no free connection in time.
  // The driver-level client's own failures (src/db/sql.ts), which name no status.
  const failure = databaseFailure(error);
  if (failure) return failure;
  if (isPoolWaitTimeout(error) || isPoolWaitTimeout((error as { cause?: unknown })?.cause)) return serviceBusy();
  // The database went away under a read (a write's own paths say whether its outcome is known).
  if (isConnectionLost(error) || isBusyDatabase(error)) return serviceBusy();
  if (prismaCode(error) === "P2025") return notFound("The record no longer exists: it was removed while this request ran.");
  if (foreignKeyViolation(error)) return new ApiError(409, "A record this request refers to was removed while it ran.");
  if (uniqueViolation(error)) return new ApiError(409, "Another request took this value while this one ran.");
  const message = String((error as { message?: unknown })?.message ?? "");
  if (/invalid byte sequence for encoding "UTF8": 0x00|unsupported Unicode escape sequence/.test(message)) {
    return new ApiError(400, "Text must not contain NUL (\\u0000) characters.");
  }
  if (/JSON Error: (unexpected end of hex escape|lone leading surrogate|invalid unicode code point)/i.test(message)) {
    return new ApiError(400, "Text must be well-formed Unicode (no lone UTF-16 surrogates).");
  }
  return null;
}
