/*
 * What the database's errors are, as the driver and Prisma report them: no HTTP status, no ApiError. What
 * each one answers a client is decided above, where the answer is made (src/common/database-errors.ts).
 */

/** Prisma's error code (P2002, P2025, …), when the error is Prisma's. */
export const prismaCode = (error: unknown) => (error as { code?: string })?.code;

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
 * A foreign-key violation: the row a write refers to (a page for its new revision, a user) was deleted
 * by a concurrent request. P2003 through the pg adapter, SQLSTATE 23503 raw through PGlite's.
 */
export function foreignKeyViolation(error: unknown): boolean {
  if (prismaCode(error) === "P2003" || (error as { code?: unknown })?.code === "23503") return true;
  const cause = (error as { name?: string; cause?: { code?: string; originalCode?: string; kind?: string } })?.cause;
  return (error as { name?: string })?.name === "DriverAdapterError" && (cause?.kind === "ForeignKeyConstraintViolation" || cause?.code === "23503" || cause?.originalCode === "23503");
}
