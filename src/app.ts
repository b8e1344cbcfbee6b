import express, { type ErrorRequestHandler, type Request } from "express";
import cors from "cors";
import type { Config } from "./config.js";
import type { RequestContext } from "./common/context.js";
import { anonymous, createContext } from "./common/context.js";
import { ApiError } from "./common/errors.js";
import { clientFaultFromDatabase } from "./common/database-errors.js";
import { cacheHeaders } from "./http/caching.js";
import { openDatabase, type Database } from "./db/database.js";
import { schema } from "./graphql/schema.js";
import { authRoutes, identifyCaller } from "./auth/http.js";
import { AUTH_CHANGED_CHANNEL, BearerCache, CHANGES_AUTH } from "./auth/bearer-cache.js";
import { answeredByProtocolEndpoint } from "./auth/api-description.js";
import { clientIp, requestLimiter, type LimiterCounts } from "./auth/rate-limits.js";
import { connectRedis, derivedRedisPrefix } from "./db/redis.js";
import { ensureFirstPartyClient } from "./auth/oauth.js";
import { schedulePurge } from "./auth/purge.js";
import { outboxConsumers, startDispatcher, type Dispatcher } from "./events/dispatcher.js";
import { onOutboxWritten, relayOutboxWrites } from "./common/outbox.js";
import { hubOf, tailOutbox } from "./events/subscriptions.js";
import { watchWindows } from "./events/windows.js";
import { startWebhookSender, type WebhookSender } from "./webhooks/delivery.js";
import { ensureAdministrator } from "./users/service.js";
import { CHANGE_PASSWORD_HINT, ensureFirstRunAdministrator, forgetChangedFirstRunPassword, passwordFileOf } from "./auth/first-run.js";
import { restFacade } from "../rest-facade/router.js";
import { IGNORED_PARAMETERS_HEADER } from "../rest-facade/params.js";
import { restOperations } from "../rest-facade/table.js";
import { selectVersion } from "../rest-facade/versions.js";
import { graphiqlAssets } from "./graphiql/page.js";
import { graphqlBody } from "./graphql/http.js";
import { executionCore } from "./execution/core.js";
import { apiDocsAssets, apiDocsRoutes, apiDocument } from "./api-docs/page.js";
import { createLogger, currentLogger, type Logger } from "./observability/logger.js";
import { requestLogging } from "./observability/http.js";
import { createMetrics } from "./observability/metrics.js";
import { pluginFailures, setPluginLogger } from "./plugins/registry.js";
import { securityHeaders } from "./http/security-headers.js";
import { refuseUnlistedPreflights } from "./http/cors.js";
import { frontDoorRoutes } from "./front-door/page.js";
import { cliEndpoint } from "./cli/endpoint.js";
import { HEALTH_PATH, LIVE, notReady, READY_PATH } from "./http/health.js";

export interface App {
  app: express.Express;
  db: Database;
  /** Delivers the outbox's events to every registered consumer (src/events/dispatcher.ts). */
  dispatcher: Dispatcher;
  /** Sends the webhook deliveries the `webhooks` consumer queues (src/webhooks/delivery.ts). */
  webhooks: WebhookSender;
  /** A stop has begun: /ready answers 503 from now on (running requests still finish; main.ts). */
  drain(): void;
  close(): Promise<void>;
}

export interface AppOptions {
  config: Config;
  /** Keep the embedded database in memory instead of DATA_DIR (tests). */
  inMemory?: boolean;
  /** With `inMemory` on PGlite: the database starts as this dump (DatabaseOptions.initialDump; tests). */
  initialDump?: Blob;
  /** Where logs go; default a logger at LOG_LEVEL on stdout. Tests capture or silence them here. */
  logger?: Logger;
  /** Called if another process takes over the DATA_DIR lock while the server runs. */
  onLockLost?: (error: Error) => void;
  /**
   * Create the first-run administrator when there is none and ADMIN_* is unset (default: unless
   * `inMemory`, so test servers start without accounts).
   */
  firstRun?: boolean;
  /** Accept CLI commands at POST /_cli from loopback callers with this token (src/cli/local-access.ts). */
  cliToken?: string;
}

/** Opens the database (migrating it), makes sure the bootstrap accounts exist, and wires every route. */
export async function createApp({ config, inMemory = false, initialDump, logger = createLogger({ level: config.logLevel }), onLockLost, firstRun = !inMemory, cliToken }: AppOptions): Promise<App> {
  // Unexpected errors are logged with the request id of the request they happened in.
  const logError = (line: string, error?: unknown) => currentLogger(logger).error({ err: error }, line);
  // Shared by every instance with REDIS_URL (docs/instances.md): rate-limit counts and the outbox's wake-ups.
  // Connected first: a Redis that cannot be reached stops the start before anything is migrated.
  const warn = (line: string, error?: unknown) => logger.warn({ err: error }, line);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisPrefix, warn) : undefined;
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: inMemory ? undefined : config.dataDir,
    cacheDir: config.cacheDir,
    initialDump: inMemory ? initialDump : undefined,
    onLockLost,
    poolSize: config.databasePoolSize,
    log: (line) => logger.info(line),
  }).catch(async (error: unknown) => {
    await redis?.close();
    throw error;
  });
  if (redis) {
    // REDIS_PREFIX, or one derived from the database (every instance of this deployment agrees on it, and no
    // other deployment shares it), set before anything uses Redis.
    const identity = config.redisPrefix ? undefined : await db.identity();
    if (identity?.note) logger.warn(`REDIS_PREFIX unset: ${identity.note}; set REDIS_PREFIX on such a copy if it shares this Redis`);
    redis.prefix = config.redisPrefix ?? derivedRedisPrefix(identity!.value);
    logger.info({ redisPrefix: redis.prefix }, `Redis keys and channels under ${redis.prefix}${config.redisPrefix ? " (REDIS_PREFIX)" : " (derived from the database; REDIS_PREFIX sets another)"}`);
  }
  const counts: LimiterCounts | undefined = redis && { redis, warn };
  // Looked-up access tokens, emptied by every change to tokens or users in any process (src/auth/bearer-cache.ts).
  const bearers = new BearerCache(config.bearerCacheTtl * 1000);
  // Its connection is checked every LISTEN_HEARTBEAT seconds: a half-open one is taken as lost (nothing kept) and replaced.
  const stopListening = await db.listen(AUTH_CHANGED_CHANNEL, () => bearers.clear(), (listening) => bearers.setListening(listening), {
    heartbeatMs: config.listenHeartbeat * 1000,
  });
  db.onQuery((sql) => CHANGES_AUTH.test(sql) && bearers.clear());
  const apiVersions = restOperations.flatMap((operation) => operation.versions);
  const metrics = createMetrics({ database: db, token: config.metricsToken, versions: apiVersions });
  // Plugin listeners and triggers that fail or overrun (src/plugins/registry.ts): counted in /metrics, logged here.
  metrics.registry.registerMetric(pluginFailures);
  setPluginLogger(logger);
  await ensureFirstPartyClient(db.prisma);
  if (config.admin) await ensureAdministrator(db.prisma, config.admin, (line) => logger.info(line));
  else if (firstRun) {
    const created = await ensureFirstRunAdministrator(db.prisma, config.dataDir);
    if (created) {
      // Shown once, here, so the first start ends with a way to sign in (README, "A walk through").
      logger.warn(
        { username: created.username, passwordFile: created.passwordFile },
        `created administrator "${created.username}" with password ${created.password} (kept in ${created.passwordFile}, readable by you only, until you change it; ${CHANGE_PASSWORD_HINT})`,
      );
    }
  }
  if (!inMemory && (await forgetChangedFirstRunPassword(db.prisma, config.dataDir))) {
    logger.info(`deleted ${passwordFileOf(config.dataDir)}: its password has been changed`);
  }

  const contextFor = (req: Request): RequestContext => {
    const ctx = createContext(db.prisma, req.viewer ?? anonymous, config);
    const lastEventId = req.get("Last-Event-ID");
    if (lastEventId) ctx.lastEventId = lastEventId;
    ctx.clientAddress = clientIp(req);
    return ctx;
  };

  // One execution core for /graphql and the REST rows (src/execution/core.ts).
  const core = executionCore({ schema, config, contextFor, logError, observers: [metrics.graphqlPlugin] });
  const { yoga } = core;

  const app = express();
  app.disable("x-powered-by");
  // qs parsing: a[]=1&a[]=2, a=1&a=2 and params[mode]=wiki, as the contract's parameter rules need.
  app.set("query parser", "extended");
  app.set("trust proxy", config.trustProxy);

  // One JSON line per request (request id, user, operation, status, duration) and its metrics.
  app.use(requestLogging(logger), metrics.observeRequests);
  app.use(securityHeaders());

  // The two API surfaces come first, each behind one prefix: a request to either passes through its own
  // middleware only. Every layer express tries costs a path match, and every router entered a few closures
  // (a REST read went through 41 layer matches and 7 routers, a /graphql request 24 and 4; docs/performance.md).
  // Preflights refused unless listed, then CORS where CORS_ORIGINS allows some: the same for both surfaces.
  const crossOrigin = [
    refuseUnlistedPreflights(config.corsOrigins),
    ...(config.corsOrigins.length
      ? [
          cors({
            origin: config.corsOrigins,
            credentials: true,
            // Safe retries and conditional requests (src/execution/conditions.ts) from a trusted page as from any client.
            allowedHeaders: ["Authorization", "Content-Type", "Accept", "X-CSRF-Token", "Idempotency-Key", "If-Match", "If-None-Match"],
            exposedHeaders: ["X-API-Version", "X-Request-Id", "Retry-After", "WWW-Authenticate", "Allow", "X-Total-Count", "ETag", "Idempotent-Replayed", IGNORED_PARAMETERS_HEADER],
            maxAge: 600,
          }),
        ]
      : []),
  ];
  const callerOf = identifyCaller(db.prisma, bearers);
  const limiter = requestLimiter(config, counts);

  const api = express.Router();
  api.use(selectVersion(apiVersions));
  api.use(crossOrigin);
  api.use(callerOf, cacheHeaders(), limiter);
  const facade = restFacade({
    schema,
    operations: restOperations,
    core,
    config,
    log: logError,
    bodyLimit: byteLimit(config.bodyLimit),
    describesArea: (area) => !answeredByProtocolEndpoint(area),
  });
  api.use(facade.readBody);
  api.use(authRoutes(db.prisma, config, counts));
  api.use(apiDocsRoutes(apiDocument()));
  api.use(facade.router);
  app.use("/api", api);

  const graphql = express.Router();
  graphql.use(crossOrigin);
  graphql.use(callerOf, limiter);
  // Read here so BODY_LIMIT holds for GraphQL bodies of every type too (chunked or not); yoga parses what it gets.
  graphql.use(graphqlBody(config.bodyLimit));
  graphql.use((req, res, next) => {
    // Until an operation executes (nameGraphQLOperations), the request is named after the endpoint.
    res.locals.operation = `${req.method} ${yoga.graphqlEndpoint}`;
    next();
  });
  graphql.use(yoga as unknown as express.RequestHandler);
  app.use(yoga.graphqlEndpoint, graphql);

  app.use(frontDoorRoutes(apiVersions));
  if (cliToken) app.use(cliEndpoint(cliToken, db, config));
  // Liveness: the process serves HTTP (main.ts answers it the same way before the app exists, migrations
  // running). Never looks at the database: a probe that restarts on it must not kill a server that waits.
  app.get(HEALTH_PATH, (_req, res) => void res.json(LIVE));
  app.get("/metrics", metrics.endpoint);
  let draining = false;
  app.get(READY_PATH, async (_req, res) => {
    // Readiness: migrated (this app exists only then), the database answering, and not draining.
    if (draining) return void res.status(503).set("Retry-After", "1").json(notReady("draining"));
    // A database that stalls is as unready as one that is down: answer within 2 seconds either way.
    const up = await Promise.race([db.ping(), new Promise<false>((resolve) => setTimeout(resolve, 2000, false).unref())]);
    if (!up) return void res.status(503).set("Retry-After", "1").json(notReady("database unavailable"));
    res.json({ status: "ready" });
  });

  app.use(graphiqlAssets());
  app.use(apiDocsAssets());
  // Everything else is answered as the caller it names: a 404 to an unknown token is its 401.
  app.use(callerOf);

  app.use((req, _res, next) => next(new ApiError(404, `Nothing at ${req.method} ${req.path}.`)));
  app.use(errorHandler(logError));

  const stopPurging = schedulePurge(db.prisma, config.purgeInterval, (line, error) => (error ? logError(line, error) : logger.info(line)), {
    outboxRetentionHours: config.outboxRetentionHours,
    webhookRetentionHours: config.webhookRetentionHours,
  });
  // Events leave the process from the outbox: woken by this process's writes, polling for other instances'.
  const dispatcher = startDispatcher({ db: db.prisma, consumers: outboxConsumers(), pollMs: config.outboxPollMs, log: logError, counted: metrics.outbox });
  const stopWaking = onOutboxWritten(db.prisma, dispatcher.wake);
  // Webhook requests go out from here, outside any transaction: a receiver that is down slows no write.
  // Retries and expired leases come due by the clock, not by a write: the sender looks at least every second,
  // even where OUTBOX_POLL_MS = 0 turns off looking for other instances' events.
  const webhooks = startWebhookSender({ db: db.prisma, config, pollMs: Math.min(config.outboxPollMs || 1000, 1000), log: logError, warn: (fields, line) => logger.warn(fields, line), counted: metrics.webhooks });
  // Subscriptions: this server's own reader of the outbox, while anyone subscribes (src/events/subscriptions.ts).
  const subscriptions = tailOutbox(db.prisma, hubOf(db.prisma), { pollMs: config.outboxPollMs, log: logError });
  // Publishing windows opening and closing are events too (src/events/windows.ts).
  const stopWatchingWindows = watchWindows(db.prisma, config, logError);
  // With REDIS_URL, a commit on any instance wakes both on every instance at once (polling stays as the net).
  const stopRelaying = redis ? await relayOutboxWrites(redis, db.prisma, warn) : () => {};
  return {
    app,
    db,
    dispatcher,
    webhooks,
    drain: () => void (draining = true),
    close: async () => {
      draining = true;
      stopRelaying();
      stopWaking();
      subscriptions.stop();
      stopWatchingWindows();
      await dispatcher.stop();
      await webhooks.stop();
      await stopPurging();
      await stopListening();
      await redis?.close();
      await db.close();
    },
  };
}

/** A body-parser size ("1mb", "512kb", "2048") in bytes. */
function byteLimit(limit: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) throw new Error(`BODY_LIMIT must be a size such as 1mb or 512kb, got "${limit}"`);
  const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
  return Math.floor(Number(match[1]) * units[(match[2] ?? "b").toLowerCase()]!);
}

/** Every error leaves as the contract's body: {"message", "code", "errors"?}. */
export function errorHandler(log: (line: string, error?: unknown) => void): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const known = toApiError(error);
    // The request's log line says why (src/observability/http.ts): a 5xx with its request id and cause.
    res.locals.failure = known ? known.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    if (!known) {
      log("unexpected error", error);
    }
    const failure = known ?? new ApiError(500, "Internal server error.");
    if (failure.status === 401) res.set("WWW-Authenticate", 'Bearer realm="hubgraph"');
    const headers = (failure.extensions.http as { headers?: Record<string, string> } | undefined)?.headers;
    if (headers) res.set(headers);
    res.status(failure.status).json({
      message: failure.message,
      code: failure.status,
      ...(failure.problems.length ? { errors: failure.problems } : {}),
    });
  };
}

/** Errors from body parsing and uploads are the client's: map them to 400/413/415. */
function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const fromDatabase = clientFaultFromDatabase(error);
  if (fromDatabase) return fromDatabase;
  const err = error as { type?: string; status?: number; code?: string; message?: string; field?: string };
  if (err.type === "entity.too.large") return new ApiError(413, "The request body is too large.");
  if (err.type === "entity.parse.failed") return new ApiError(400, "The request body is not valid JSON.", [{ parameter: "body", message: "is not valid JSON" }]);
  if (err.type === "encoding.unsupported" || err.type === "charset.unsupported") return new ApiError(415, "Unsupported body encoding.");
  if (err.status && err.status >= 400 && err.status < 500) return new ApiError(err.status, err.message ?? "Bad request.");
  return clientFaultFromDatabase(error);
}
