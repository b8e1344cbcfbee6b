import { ApiError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { isBusyDatabase, isConnectionLost, isPoolWaitTimeout, serviceBusy } from "./sql.js";

const prismaCode = (error: unknown) => (error as { code?: string })?.code;

/**
 * The columns of a unique-constraint violation, or null when `error` is none. Prisma reports it as
 * P2002 through the pg adapter, but the PGlite adapter's raw DriverAdapterError (SQLSTATE 23505) comes
 * through unmapped; both count, or a race on PGlite would surface as a 500.
 */
export function uniqueViolation(error: unknown): { fields: string[] } | null {
  if (prismaCode(error) === "P2002") {
    const meta = (error as { meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: unknown } } } } }).meta;
    const fields = meta?.driverAdapterError?.cause?.constraint?.fields ?? meta?.target;
    return { fields: Array.isArray(fields) ? fields.map(String) : [] };
  }
  // The write path's own statements (src/common/write-path.ts) fail with the driver's error: SQLSTATE in `code`.
  const raw = error as { code?: unknown; detail?: string; name?: string };
  if (raw?.code === "23505" && raw.name !== "DriverAdapterError") {
    const columns = /^Key \((.+?)\)=/.exec(raw.detail ?? "")?.[1];
    return { fields: columns ? columns.split(",").map((column) => column.trim()) : [] };
  }
  const cause = (error as { name?: string; cause?: { code?: string; originalCode?: string; kind?: string; detail?: string } })?.cause;
  if ((error as { name?: string })?.name === "DriverAdapterError" && cause) {
    if (cause.kind === "UniqueConstraintViolation" || cause.code === "23505" || cause.originalCode === "23505") {
      // PostgreSQL's detail: Key (scope, scope_id, pagename)=(site, 0, Home) already exists.
      const columns = /^Key \((.+?)\)=/.exec(cause.detail ?? "")?.[1];
      return { fields: columns ? columns.split(",").map((column) => column.trim()) : [] };
    }
  }
  return null;
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
 * A foreign-key violation: the row a write refers to (a page for its new revision, a user) was deleted
 * by a concurrent request. P2003 through the pg adapter, SQLSTATE 23503 raw through PGlite's.
 */
function foreignKeyViolation(error: unknown): boolean {
  if (prismaCode(error) === "P2003" || (error as { code?: unknown })?.code === "23503") return true;
  const cause = (error as { name?: string; cause?: { code?: string; originalCode?: string; kind?: string } })?.cause;
  return (error as { name?: string })?.name === "DriverAdapterError" && (cause?.kind === "ForeignKeyConstraintViolation" || cause?.code === "23503" || cause?.originalCode === "23503");
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
