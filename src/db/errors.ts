import { ApiError, conflict, notFound } from "../common/errors.js";
import { isPoolWaitTimeout, serviceBusy } from "./sql.js";

const prismaCode = (error: unknown) => (error as { code?: string })?.code;

/**
 * For `.catch()` on writes, turning what a concurrent request can cause into the contract's errors:
 * a unique-constraint violation (P2002) that slipped past the service's own check becomes a 409 naming
 * the parameter; a record deleted in the meantime (P2025) becomes a 404.
 */
export function writeFailure(options: { conflict?: { parameter: string; message: string }; missing?: string }) {
  return (error: unknown): never => {
    if (prismaCode(error) === "P2002" && options.conflict) throw conflict(options.conflict.parameter, options.conflict.message);
    if (prismaCode(error) === "P2025" && options.missing) throw notFound(options.missing);
    throw error;
  };
}

/**
 * Runs a create again when it lost a race for a unique name it derived itself (P2002): the next
 * attempt derives the name anew. Names the client chose are never retried; they are a 409.
 */
export async function retryDerivedName<T>(derived: boolean, run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!derived || attempt >= attempts || prismaCode(error) !== "P2002") throw error;
    }
  }
}

/**
 * Database errors that are the client's fault, as the contract's 4xx; null for everything else.
 * PostgreSQL text cannot hold NUL characters, and no layer above the driver knows that, so both
 * surfaces (GraphQL error masking and the REST facade) ask here before treating an error as a 500.
 */
export function clientFaultFromDatabase(error: unknown): ApiError | null {
  // Not the client's fault either, but not an internal error: the pool had no free connection in time.
  if (isPoolWaitTimeout(error) || isPoolWaitTimeout((error as { cause?: unknown })?.cause)) return serviceBusy();
  const message = String((error as { message?: unknown })?.message ?? "");
  if (/invalid byte sequence for encoding "UTF8": 0x00|unsupported Unicode escape sequence/.test(message)) {
    return new ApiError(400, "Text must not contain NUL (\\u0000) characters.");
  }
  return null;
}
