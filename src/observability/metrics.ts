import crypto from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { hubOf } from "../events/subscriptions.js";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { Plugin } from "graphql-yoga";
import { ApiError } from "../common/errors.js";
import type { Database } from "../db/database.js";
import { operationOf } from "./http.js";
import { graphqlMetricsPlugin } from "./graphql-metrics.js";
import { boundedLabel } from "./labels.js";
import type { WebhookMetrics } from "../webhooks/delivery.js";
import { RUNNING_HERE_FROM } from "../common/outbox.js";

export interface Metrics {
  registry: Registry;
  /** Observes every request when it ends: duration by operation, API version and status. */
  observeRequests: RequestHandler;
  /** GET /metrics in Prometheus' text format; with a token, only for `Authorization: Bearer <token>`. */
  endpoint: RequestHandler;
  /** GraphQL execution timings and error counts (src/observability/graphql-metrics.ts). */
  graphqlPlugin: Plugin;
  /** Outbox delivery per consumer (src/events/dispatcher.ts): events delivered, batches failed. */
  outbox: { delivered(consumer: string, count: number): void; failed(consumer: string): void };
  /** Webhook attempts by outcome, deliveries failed for good, endpoints disabled (src/webhooks/delivery.ts). */
  webhooks: WebhookMetrics;
}

export interface MetricsOptions {
  database: Database;
  /** METRICS_TOKEN. */
  token?: string;
  /** Every API version some operation has: other asked versions are labelled "other". */
  versions: Iterable<string>;
}

/**
 * GraphQL operation names are the client's to choose. Each distinct label value is a time series kept
 * for the life of the process, so only the first names seen get their own; later ones share one label.
 */
const MAX_GRAPHQL_OPERATION_LABELS = 100;

/** Prometheus metrics of one app, in a registry of its own (several apps share a test process). */
export function createMetrics({ database, token, versions }: MetricsOptions): Metrics {
  const registry = new Registry();
  // Process metrics: resident memory, CPU, heap, event-loop lag, GC, open handles.
  collectDefaultMetrics({ register: registry });

  const requestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP requests by operation (facade row, GraphQL operation or route), API version and status; _count counts them.",
    labelNames: ["operation", "version", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  new Gauge({
    name: "hubgraph_database_info",
    help: "The database in use: kind is pglite (embedded, one in-process connection) or postgresql (a pg pool).",
    labelNames: ["kind"] as const,
    registers: [registry],
  }).set({ kind: database.kind }, 1);
  if (database.poolStats) {
    const poolStats = database.poolStats;
    new Gauge({
      name: "hubgraph_database_pool_connections",
      help: "PostgreSQL pool connections: total open, idle, and waiting (queries queued for a free connection).",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const { total, idle, waiting } = poolStats();
        this.set({ state: "total" }, total);
        this.set({ state: "idle" }, idle);
        this.set({ state: "waiting" }, waiting);
      },
    });
  }

  const delivered = new Counter({
    name: "hubgraph_outbox_delivered_total",
    help: "Domain events delivered from the outbox, by consumer (committed with the consumer's cursor).",
    labelNames: ["consumer"] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: "hubgraph_outbox_failures_total",
    help: "Outbox batches a consumer failed, by consumer (each retried from the same cursor).",
    labelNames: ["consumer"] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: "hubgraph_webhook_attempts_total",
    help: "Webhook requests sent, by outcome (delivered, http_error, timeout, refused, network).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const webhookFailures = new Counter({ name: "hubgraph_webhook_deliveries_failed_total", help: "Webhook deliveries marked failed after their retry window.", registers: [registry] });
  const webhooksDisabled = new Counter({ name: "hubgraph_webhook_endpoints_disabled_total", help: "Webhook endpoints disabled by a run of failed attempts.", registers: [registry] });
  const sql = sqlClientOf(database.prisma);
  new Gauge({
    name: "hubgraph_outbox_lag_seconds",
    help: "Per consumer, the age of the oldest committed event it has not taken yet (0: caught up); read from the database at each scrape.",
    labelNames: ["consumer"] as const,
    registers: [registry],
    async collect() {
      const rows = await sql.query<{ consumer: string; lag: number }>(Prisma.sql`
        SELECT c.name AS consumer, COALESCE(EXTRACT(EPOCH FROM (now() AT TIME ZONE 'UTC') - min(o.occurred_at)), 0)::float8 AS lag
          FROM outbox_consumers c
          LEFT JOIN outbox o ON (o.xid, o.id) > (c.xid, c.event_id) AND o.xid < ${RUNNING_HERE_FROM}
         GROUP BY c.name`);
      this.reset();
      for (const row of rows) this.set({ consumer: row.consumer }, Math.max(0, row.lag));
    },
  });

  const hub = hubOf(database.prisma);
  new Gauge({
    name: "hubgraph_subscriptions_open",
    help: "GraphQL subscriptions open on this server instance (each an SSE stream).",
    registers: [registry],
    collect() {
      this.set(hub.size);
    },
  });

  const knownVersions = new Set(versions);
  const graphqlName = boundedLabel(MAX_GRAPHQL_OPERATION_LABELS, "graphql (other)");
  const operationLabel = (operation: string) => (operation.startsWith("graphql ") ? graphqlName(operation) : operation);
  const versionLabel = (res: Response) => {
    const version = res.getHeader("X-API-Version");
    if (version === undefined) return "";
    return knownVersions.has(String(version)) ? String(version) : "other";
  };

  const observeRequests: RequestHandler = (req: Request, res: Response, next) => {
    const stopTimer = requestDuration.startTimer();
    // "close" comes once per response, whether it finished or the client went away.
    res.once("close", () => stopTimer({ operation: operationLabel(operationOf(req, res)), version: versionLabel(res), status: String(res.statusCode) }));
    next();
  };

  const expected = token ? digest(token) : null;
  const endpoint: RequestHandler = async (req, res, next) => {
    try {
      if (expected) {
        const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
        if (!given || !crypto.timingSafeEqual(digest(given), expected)) {
          throw new ApiError(401, "GET /metrics needs the METRICS_TOKEN as a bearer token.");
        }
      } else if (!isLoopback(req.socket.remoteAddress) || req.get("x-forwarded-for") !== undefined || req.get("forwarded") !== undefined) {
        // The socket's own peer, never req.ip: X-Forwarded-For is the client's to write. A request relayed
        // by a proxy on this machine comes from a loopback socket too, but carries forwarding headers (as
        // every common proxy adds them): it is not this machine asking, so it is refused as well.
        throw new ApiError(403, "GET /metrics answers only this machine (loopback) unless METRICS_TOKEN is set; then it needs that token as a bearer token.");
      }
      res.set("Content-Type", registry.contentType).send(await registry.metrics());
    } catch (error) {
      next(error);
    }
  };

  // Not parse, validate or context timings: the first two are answered from caches by document (a REST row's
  // always, validated on its first run only), the third is our constant-time createContext; timing them cost
  // each request ≈ 25 µs of CPU (a REST read's 3–4 %) for histograms of lookups. A new document's parse and
  // validation are bounded by the limits (src/graphql/limits.ts) and show in the request's duration.
  const graphqlPlugin = graphqlMetricsPlugin(registry);

  return {
    registry,
    observeRequests,
    endpoint,
    graphqlPlugin,
    outbox: { delivered: (consumer, count) => delivered.inc({ consumer }, count), failed: (consumer) => failed.inc({ consumer }) },
    webhooks: { attempted: (outcome) => webhookAttempts.inc({ outcome }), failed: () => webhookFailures.inc(), disabled: () => webhooksDisabled.inc() },
  };
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses (a dual-stack socket's form of 127.0.0.1). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return address === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
