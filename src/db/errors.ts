import { ApiError, conflict } from "../common/errors.js";

/**
 * For `.catch()` on writes: a unique-constraint violation (Prisma P2002) that slipped past the
 * service's own check, e.g. two concurrent creates, becomes a 409 naming the parameter.
 */
export function uniqueViolation(parameter: string, message: string) {
  return (error: unknown): never => {
    if ((error as { code?: string })?.code === "P2002") throw conflict(parameter, message);
    throw error;
  };
}

/**
 * Database errors that are the client's fault, as the contract's 4xx; null for everything else.
 * PostgreSQL text cannot hold NUL characters, and no layer above the driver knows that, so both
 * surfaces (GraphQL error masking and the REST facade) ask here before treating an error as a 500.
 */
export function clientFaultFromDatabase(error: unknown): ApiError | null {
  const message = String((error as { message?: unknown })?.message ?? "");
  if (/invalid byte sequence for encoding "UTF8": 0x00|unsupported Unicode escape sequence/.test(message)) {
    return new ApiError(400, "Text must not contain NUL (\\u0000) characters.");
  }
  return null;
}
