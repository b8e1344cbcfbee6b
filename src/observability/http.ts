import type { Request, RequestHandler, Response } from "express";
import { runWithRequestLogger, type Logger } from "./logger.js";
import { hasServerFault } from "./graphql.js";
import { requestIdOf } from "./request-id.js";

declare global {
  namespace Express {
    interface Request {
      /** The logger of this request: every line carries its requestId (made when first used). */
      log: Logger;
    }
    interface Locals {
      /**
       * What the request ran, for logs and metrics: the facade row ("GET /api/wiki/{id}"), the GraphQL
       * operation ("graphql query WikiPages"), or the route. Set by whoever knows it.
       */
      operation?: string;
      /** The codes of the errors a GraphQL answer carried (src/observability/graphql.ts, logGraphQLErrors). */
      graphqlErrors?: string[];
      /** Why an error answer was given (its message), for the request's line (app.ts errorHandler). */
      failure?: string;
    }
  }
}

/** A client's X-Request-Id is kept when it looks like an id (a UUID, a trace id); anything else is replaced. */


/** Probes and scrapes, logged at debug so a health check every few seconds does not drown the log. */
const QUIET_PATHS = new Set(["/health", "/ready", "/metrics"]);

/** The path without the query string: a query may carry what a careless client should not have put there. */
export function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url;
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The request's operation for logs and metrics, from a bounded set of names: the one set in
 * `res.locals.operation`, else the express route that answered (`GET /health`, `POST /api/session`),
 * else "unmatched" (a 404, or a request refused before any route, e.g. a malformed version).
 */
export function operationOf(req: Request, res: Response): string {
  if (res.locals.operation) return res.locals.operation;
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === "string") {
    // After an error left a mounted router, express has reset baseUrl; /api is the only mount with routes.
    const mount = req.baseUrl || (pathOf(req).startsWith("/api/") && !route.path.startsWith("/api") ? "/api" : "");
    return `${req.method} ${mount}${route.path}`;
  }
  return "unmatched";
}

/**
 * One JSON line per request when it ends: time, level, requestId, method, path (never the query string),
 * status, duration (ms), userId, operation and API version. The request id comes from X-Request-Id when
 * sane, else a new UUID, and is echoed in the response. Code running for the request logs through
 * `req.log` (or `currentLogger`), which carries the same requestId.
 *
 * Written here rather than with pino-http: that made a child logger and serializers for every request,
 * about 3 % of the CPU of a list answer; here the child logger is made only when something logs through
 * it, and the line itself is one call to the server's logger.
 */
export function requestLogging(logger: Logger): RequestHandler[] {
  const describe = (req: Request, res: Response, duration: number) => ({
    method: req.method,
    path: pathOf(req),
    status: res.statusCode,
    duration,
    userId: req.viewer?.user?.id ?? null,
    operation: operationOf(req, res),
    ...(res.getHeader("X-API-Version") ? { version: String(res.getHeader("X-API-Version")) } : {}),
    // A GraphQL answer's errors (HTTP 200 for resolver errors), and an error answer's message.
    ...(res.locals.graphqlErrors?.length ? { graphqlErrors: res.locals.graphqlErrors } : {}),
    ...(res.locals.failure ? { error: res.locals.failure } : {}),
    // The client went away before the response was complete.
    ...(res.writableFinished ? {} : { aborted: true }),
  });
  const logRequests: RequestHandler = (req, res, next) => {
    const started = Date.now();
    const requestId = requestIdOf(req);
    res.setHeader("X-Request-Id", requestId);
    let child: Logger | undefined;
    const requestLogger = () => (child ??= logger.child({ requestId }));
    Object.defineProperty(req, "log", { configurable: true, enumerable: false, get: requestLogger });
    // "close" comes once per response, whether it finished or the client went away.
    res.once("close", () => {
      const errors = res.locals.graphqlErrors ?? [];
      const level = res.statusCode >= 500 || hasServerFault(errors) ? "error" : QUIET_PATHS.has(pathOf(req)) ? "debug" : "info";
      if (!logger.isLevelEnabled(level)) return;
      // "POST /graphql 200 with errors FORBIDDEN (graphql mutation CreateWikiPage)": a 200 carrying errors says so.
      const carried = errors.length ? ` with errors ${errors.join(", ")} (${operationOf(req, res)})` : "";
      const why = res.statusCode >= 500 && res.locals.failure ? `: ${res.locals.failure}` : "";
      logger[level]({ requestId, ...describe(req, res, Date.now() - started) }, `${req.method} ${pathOf(req)} ${res.statusCode}${carried}${why}`);
    });
    runWithRequestLogger(requestLogger, next);
  };
  return [logRequests];
}
