import crypto from "node:crypto";

const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * The request's id: its X-Request-Id when sane, else a new UUID. A module of its own, so the server's first
 * answers (src/main.ts, before the app is loaded) carry and log one too without loading more.
 */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const asked = req.headers["x-request-id"];
  return typeof asked === "string" && SANE_REQUEST_ID.test(asked) ? asked : crypto.randomUUID();
}
