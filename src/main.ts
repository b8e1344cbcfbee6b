import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { loadConfig, serverBaseUrl, StartupError, type Config } from "./config.js";
import { createLogger, type Logger } from "./observability/logger.js";
import { requestIdOf } from "./observability/request-id.js";
import { createHttpServer } from "./http/server.js";
import { HEALTH_PATH, LIVE, notReady, READY_PATH } from "./http/health.js";

/** How long running requests get to finish after SIGTERM/SIGINT before their connections are closed. */
const SHUTDOWN_GRACE_MS = 10_000;

// The environment is checked before anything is created: a bad value never leaves a database or a
// half-started server behind.
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  exitWith(createLogger({ level: "info" }), error);
}
const logger = createLogger({ level: config.logLevel });
process.on("uncaughtException", (error) => exitWith(logger, error));
process.on("unhandledRejection", (error) => exitWith(logger, error));

// The port comes first (a busy port is found in milliseconds, not after the database is migrated);
// until the app is ready every request is answered 503.
// Request timeouts included (src/http/server.ts): a truncated body is answered 408 and dropped.
const server = createHttpServer();
let stopping = false;
// Until then /health (liveness) is already 200 and /ready 503 "starting" (src/http/health.ts): a liveness
// probe does not kill a server that is migrating.
let handle: http.RequestListener = (req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" || req.method === "HEAD") {
    if (path === HEALTH_PATH) return void res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" }).end(JSON.stringify(LIVE));
    if (path === READY_PATH) return void res.writeHead(503, { "Content-Type": "application/json; charset=utf-8", "Retry-After": "1" }).end(JSON.stringify(notReady("starting")));
  }
  // Logged with its request id, which the answer carries: at warn, since nothing is wrong (docs/decisions.md,
  // "Logs of failures"); a scrape of /metrics at debug, as it is once the server runs.
  const requestId = requestIdOf(req);
  logger[path === "/metrics" ? "debug" : "warn"]({ requestId, method: req.method, path, status: 503 }, `${req.method} ${path} 503: starting up`);
  res.writeHead(503, { "Content-Type": "application/json; charset=utf-8", "Retry-After": "1", "X-Request-Id": requestId }).end(JSON.stringify({ message: "Starting up.", code: 503 }));
};
// Responses still to be written: told to close their connection when a stop begins, so that keep-alive
// clients do not hold the stop up for the keep-alive timeout after their last answer.
const unanswered = new Set<http.ServerResponse>();
server.on("request", (req, res) => {
  if (stopping) res.setHeader("Connection", "close");
  unanswered.add(res);
  res.once("close", () => unanswered.delete(res));
  handle(req, res);
});
try {
  await listen(server, config);
} catch (error) {
  exitWith(logger, error);
}
{
  const { port } = server.address() as AddressInfo;
  logger.info({ url: serverBaseUrl(config.host, port) }, `listening on ${serverBaseUrl(config.host, port)}: /health answers now, /ready once the database is open and migrated`);
}

// Loaded only now, so that a bad variable or a busy port is reported before the schema is even built.
const { createApp } = await import("./app.js");
const { newCliToken, publishCliAccess } = await import("./cli/local-access.js");
// The CLI beside this server: with the embedded database, commands run in here (src/cli/local-access.ts).
const cliToken = config.databaseUrl ? undefined : newCliToken();
let withdrawCliAccess = () => {};
const starting = createApp({
  config,
  logger,
  cliToken,
  onLockLost: (error) => {
    // Another server took the embedded database over; writing on would corrupt it, so stop at once.
    logger.fatal({ err: error }, `lost the lock on DATA_DIR ${path.resolve(config.dataDir)} to another process; stopping`);
    process.exit(1);
  },
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // `on`, not `once`: a second signal must find this handler too, or signal-exit (proper-lockfile's)
  // would take it for an unhandled signal and kill the process in the middle of the graceful stop.
  // A second signal is normal (Ctrl-C under `npm start` reaches node from the terminal and from npm)
  // and changes nothing: the stop is bounded by the grace period anyway.
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // /ready answers 503 "draining" from now on, on connections still open (src/http/health.ts).
    void starting.then((app) => app.drain(), () => {});
    logger.info(`${signal}: stopping (running requests get ${SHUTDOWN_GRACE_MS / 1000} s)`);
    void stop().then(
      () => {
        logger.info("stopped: every request answered, the database closed");
        process.exit(0);
      },
      (error: unknown) => exitWith(logger, error),
    );
  });
}

try {
  const app = await starting;
  if (!stopping) {
    handle = app.app;
    const { port } = server.address() as AddressInfo;
    const base = serverBaseUrl(config.host, port);
    const database = app.db.kind === "pglite" ? `embedded PGlite in ${path.resolve(config.dataDir)}` : "PostgreSQL";
    const { restOperations } = await import("../rest-facade/table.js");
    const { describedAreas } = await import("./auth/api-description.js");
    const areas = describedAreas(restOperations).map((area) => `${base}/api/${area}`);
    if (cliToken) {
      // The CLI calls over loopback, whatever interface the server is bound to.
      const loopback = ["0.0.0.0", "::", "127.0.0.1", "localhost"].includes(config.host) ? `http://127.0.0.1:${port}` : base;
      withdrawCliAccess = publishCliAccess(config.dataDir, { url: loopback, token: cliToken, pid: process.pid });
    }
    logger.info({ url: base }, `Hubgraph ready on ${base} (${database})`);
    logger.info(`GraphiQL ${base}/graphql; REST API ${base}/api: ${areas.join(", ")}`);
  }
} catch (error) {
  exitWith(logger, error);
}

/** Stops taking connections, lets running requests finish (closing their connections after the grace period), then closes the database. */
async function stop(): Promise<void> {
  withdrawCliAccess();
  for (const res of unanswered) if (!res.headersSent) res.setHeader("Connection", "close");
  await new Promise<void>((resolve) => {
    const deadline = setTimeout(() => {
      logger.warn(`requests still running after ${SHUTDOWN_GRACE_MS / 1000} s; closing their connections`);
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS).unref();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
  // A signal during start-up waits for it to finish: migrations are not interrupted half-way.
  const app = await starting.catch(() => undefined);
  await app?.close();
}

function listen(target: http.Server, { port, host }: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, port, host));
    target.once("error", failed);
    target.listen(port, host, () => {
      target.off("error", failed);
      resolve();
    });
  });
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (error.code) {
    case "EADDRINUSE":
      return new StartupError(`Port ${port} on ${host} is already in use (PORT): another server is listening there.`);
    case "EACCES":
      return new StartupError(`Not allowed to listen on port ${port} (PORT): ports below 1024 need privileges.`);
    case "EADDRNOTAVAIL":
      return new StartupError(`HOST ${host} is not an address of this machine.`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError(`HOST ${host} cannot be resolved.`);
    default:
      return error;
  }
}

/** Logs why the server cannot run — one line for a StartupError, the stack for anything else — and exits 1. */
function exitWith(log: Logger, error: unknown): never {
  if (error instanceof StartupError) log.fatal(error.message);
  else log.fatal({ err: error }, "Hubgraph stopped on an unexpected error");
  process.exit(1);
}
