/**
 * Liveness and readiness (README, "Health"; docs/operations.md):
 * - `GET /health` is liveness: 200 `{"status":"ok"}` as soon as the process serves HTTP, while it migrates
 *   the database too. A liveness probe (Docker's HEALTHCHECK, Kubernetes' livenessProbe) uses it: it never
 *   depends on the database, so a server that is only starting, or waiting for a database, is not killed.
 * - `GET /ready` is readiness: 200 `{"status":"ready"}` once the database is migrated and answers; 503 with
 *   `{"status": "starting" | "database unavailable" | "draining"}` and `Retry-After` before that, while the
 *   database does not answer, and once a stop has begun. A load balancer or readinessProbe uses it.
 * main.ts answers both before the app exists (starting); the app answers them afterwards (src/app.ts).
 */
export const HEALTH_PATH = "/health";
export const READY_PATH = "/ready";

export const LIVE = { status: "ok" } as const;

export type NotReady = "starting" | "database unavailable" | "draining";

/** The body of a 503 from /ready: why it is not ready. */
export const notReady = (status: NotReady) => ({ status });
