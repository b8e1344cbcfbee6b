import { conflict } from "../common/errors.js";

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
