import express from "express";
import { z } from "zod";
import ipaddr from "ipaddr.js";
import { DEFAULT_CACHE_DIR } from "./db/embedded-template.js";

/** Server configuration, read once from the environment. Every option is documented in the README. */
export interface Config {
  /** TCP port (PORT, default 3000; 0 picks a free one). */
  port: number;
  /** Interface to bind (HOST, default 0.0.0.0). */
  host: string;
  /** postgres:// URL (DATABASE_URL); unset means the embedded PGlite database. */
  databaseUrl?: string;
  /** Folder of the embedded database (DATA_DIR, default ./data). */
  dataDir: string;
  /**
   * Folder for what the server can make again (CACHE_DIR, default node_modules/.cache/hubgraph; `off`: none):
   * the template a new DATA_DIR's database is copied from (src/db/embedded-template.ts).
   */
  cacheDir?: string;
  /** PostgreSQL connections the server opens at most (DATABASE_POOL_SIZE, default 10). */
  databasePoolSize: number;
  /** Bootstrap administrator (ADMIN_USERNAME / ADMIN_PASSWORD / ADMIN_EMAIL). */
  admin?: { username: string; password: string; email?: string };
  /** `open` lets anyone create an account through POST /api/members (REGISTRATION, default closed). */
  registration: "open" | "closed";
  /** Lifetime of bearer tokens in seconds (ACCESS_TOKEN_TTL, default 3600). */
  accessTokenTtl: number;
  /** Lifetime of refresh tokens in seconds (REFRESH_TOKEN_TTL, default 1209600 = 14 days). */
  refreshTokenTtl: number;
  /** Seconds after a refresh in which the same refresh token gets the same new pair again (REFRESH_TOKEN_GRACE, default 10; 0 turns it off). */
  refreshTokenGrace: number;
  /** Seconds a server keeps a looked-up access token at most (BEARER_CACHE_TTL, default 60; 0 turns the cache off); any change to tokens or users empties it at once (src/auth/bearer-cache.ts). */
  bearerCacheTtl: number;
  /**
   * Seconds between checks of the connection that listens for those changes (LISTEN_HEARTBEAT, default 30;
   * 0 turns the check off): a connection that does not answer within as long is taken as lost, so a
   * half-open one is noticed within two intervals instead of never (src/db/database.ts listenOnPostgres).
   */
  listenHeartbeat: number;
  /** Lifetime of cookie sessions in seconds (SESSION_TTL, default 604800 = 7 days). */
  sessionTtl: number;
  /** Mark the session cookie Secure (COOKIE_SECURE=true behind HTTPS; default false). */
  cookieSecure: boolean;
  /** Largest accepted request body (BODY_LIMIT, default 1mb). */
  bodyLimit: string;
  /** Largest file a course asset takes, in megabytes (COURSE_UPLOAD_LIMIT_MB, default 100); the JSON body limit stays BODY_LIMIT. */
  courseUploadLimitMb: number;
  /** The asset groups a new course unit gets (COURSE_DEFAULT_ASSET_GROUPS, comma-separated; default "Lectures, Homework, Exam"; empty: none). */
  courseDefaultAssetGroups: string[];
  /** Requests per minute per user (or per address when anonymous); 0 turns it off (RATE_LIMIT, default 600). */
  rateLimit: number;
  /** Failed sign-ins per 15 minutes per address and account; 0 turns it off (LOGIN_RATE_LIMIT, default 10). */
  loginRateLimit: number;
  /** How often expired sessions and tokens (and the list totals' day counts of past days) are deleted, in seconds; 0 turns it off (PURGE_INTERVAL, default 3600). */
  purgeInterval: number;
  /** Milliseconds between checks of the outbox for events other instances wrote (OUTBOX_POLL_MS, default 1000; 0: only this process's own writes wake delivery). */
  outboxPollMs: number;
  /** Anonymous subscriptions one address may hold on an instance (ANONYMOUS_SUBSCRIPTIONS_PER_ADDRESS, default 100; 0: no cap but the 2,000 of all anonymous callers). */
  anonymousSubscriptionsPerAddress: number;
  /** Hours delivered events are kept before the purge deletes them (OUTBOX_RETENTION_HOURS, default 72): only events every consumer has. */
  outboxRetentionHours: number;
  /**
   * Addresses webhooks may be sent to although they are loopback, private, link-local or otherwise not
   * public (WEBHOOK_ALLOWED_ADDRESSES, comma-separated IPs or CIDRs; default none): a receiver on this
   * machine or the internal network (src/webhooks/addresses.ts).
   */
  webhookAllowedAddresses: string[];
  /** Milliseconds a webhook request may take, connection to the answer's end (WEBHOOK_TIMEOUT_MS, default 10000). */
  webhookTimeoutMs: number;
  /** Hours a webhook delivery is retried (with doubling delays) before it is marked failed (WEBHOOK_RETRY_HOURS, default 24, at least 24). */
  webhookRetryHours: number;
  /** Failed attempts in a row that disable an endpoint (WEBHOOK_DISABLE_AFTER_FAILURES, default 100; 0: never). */
  webhookDisableAfterFailures: number;
  /** Webhook requests one server sends at once (WEBHOOK_CONCURRENCY, default 8). */
  webhookConcurrency: number;
  /** Hours delivered and failed webhook deliveries (and their attempts) are kept (WEBHOOK_RETENTION_HOURS, default 168). */
  webhookRetentionHours: number;
  /**
   * redis:// URL (REDIS_URL; unset: every count and wake-up stays in this process). With it, server
   * instances share their rate-limit counters and wake each other when they commit events (docs/instances.md).
   */
  redisUrl?: string;
  /**
   * Prefix of every Redis key and channel this deployment uses (REDIS_PREFIX), so deployments can share a
   * Redis. Unset: derived from the database's identity (src/db/redis.ts, derivedRedisPrefix).
   */
  redisPrefix?: string;
  /** Origins whose browser apps may call the API with credentials (CORS_ORIGINS, comma-separated; default none). */
  corsOrigins: string[];
  /** Express "trust proxy" setting, for client addresses behind a reverse proxy (TRUST_PROXY, default off). */
  trustProxy: boolean | string | number;
  /** Least severe log level written (LOG_LEVEL, default info). */
  logLevel: LogLevel;
  /** Bearer token GET /metrics requires (METRICS_TOKEN); unset, /metrics answers loopback callers only. */
  metricsToken?: string;
  /** Who may introspect the GraphQL schema (INTROSPECTION, default public): everyone, signed-in callers, or nobody. */
  introspection: "public" | "signed-in" | "off";
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A reason the server cannot start that the operator can fix (a bad variable, a busy port, a locked
 * DATA_DIR, an unreachable database): its message is one line that says what to change, shown without a
 * stack trace.
 */
export class StartupError extends Error {
  override name = "StartupError";
}

// Each variable: what is allowed (said in the error), how it is read, and its default. An empty value
// counts as unset, as shells and compose files produce them easily.
const unset = (value: unknown) => (value === "" ? undefined : value);
/** A comma-separated list (spaces around entries ignored; unset or empty: none), each entry passing `valid`. */
const commaSeparated = (valid: (entry: string) => boolean, message: string) =>
  z.preprocess(
    unset,
    z
      .string()
      .transform((value) => value.split(",").map((entry) => entry.trim()).filter(Boolean))
      .refine((entries) => entries.every(valid), message)
      .default([]),
  );
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unset, schema.optional());

function wholeNumber(minimum: number, maximum: number, fallback: number, meaning = "") {
  const allowed = `must be a whole number from ${minimum} to ${maximum}${meaning}`;
  return z.preprocess(
    unset,
    z
      .string()
      .regex(/^\d+$/, allowed)
      .transform(Number)
      .refine((value) => value >= minimum && value <= maximum, allowed)
      .default(fallback),
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.preprocess(unset, z.enum(values, { error: `must be one of ${values.join(", ")}` }).default(fallback));
}

/** A URL of one of `protocols` with a host (a database's, Redis's). */
const serviceUrl = (protocols: string[], allowed: string) =>
  z.string().refine((value) => {
    try {
      const url = new URL(value);
      return protocols.includes(url.protocol) && url.hostname !== "";
    } catch {
      return false;
    }
  }, allowed);

const DAY = 24 * 3600;
const SIZE = /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb)?\s*$/i;

const environment = z
  .object({
    PORT: wholeNumber(0, 65535, 3000, " (0 picks a free port)"),
    HOST: z.preprocess(unset, z.string().default("0.0.0.0")),
    DATABASE_URL: optional(
      serviceUrl(["postgres:", "postgresql:"], "must be a PostgreSQL URL such as postgres://user:password@host:5432/database (leave it unset for the embedded database)"),
    ),
    DATA_DIR: z.preprocess(unset, z.string().default("data")),
    CACHE_DIR: z.preprocess(unset, z.string().default(DEFAULT_CACHE_DIR)),
    DATABASE_POOL_SIZE: wholeNumber(1, 1_000, 10, " (PostgreSQL connections per server process)"),
    ADMIN_USERNAME: optional(z.string()),
    ADMIN_PASSWORD: optional(z.string().min(8, "must be at least 8 characters long")),
    ADMIN_EMAIL: optional(z.email("must be an e-mail address")),
    REGISTRATION: oneOf(["open", "closed"], "closed"),
    ACCESS_TOKEN_TTL: wholeNumber(1, 365 * DAY, 3600, " (seconds)"),
    REFRESH_TOKEN_TTL: wholeNumber(1, 365 * DAY, 14 * DAY, " (seconds)"),
    REFRESH_TOKEN_GRACE: wholeNumber(0, 300, 10, " (seconds; 0 turns the grace period off)"),
    BEARER_CACHE_TTL: wholeNumber(0, 3600, 60, " (seconds; 0 turns the cache off)"),
    LISTEN_HEARTBEAT: wholeNumber(0, 3600, 30, " (seconds; 0 turns the check off)"),
    SESSION_TTL: wholeNumber(1, 365 * DAY, 7 * DAY, " (seconds)"),
    COOKIE_SECURE: oneOf(["true", "false"], "false"),
    BODY_LIMIT: z.preprocess(unset, z.string().regex(SIZE, "must be a size such as 1mb, 512kb or 2048 (bytes)").default("1mb")),
    COURSE_UPLOAD_LIMIT_MB: wholeNumber(1, 10_240, 100, " (megabytes)"),
    COURSE_DEFAULT_ASSET_GROUPS: z
      .string()
      .default("Lectures, Homework, Exam")
      .transform((names) => names.split(",").map((name) => name.trim()).filter(Boolean))
      .refine((names) => names.length <= 20 && names.every((name) => name.length <= 255), "must be at most 20 comma-separated names of at most 255 characters"),
    RATE_LIMIT: wholeNumber(0, 1_000_000, 600, " (requests per minute; 0 turns the limit off)"),
    LOGIN_RATE_LIMIT: wholeNumber(0, 1_000_000, 10, " (failed sign-ins per 15 minutes; 0 turns the limit off)"),
    PURGE_INTERVAL: wholeNumber(0, 365 * DAY, 3600, " (seconds between purges of expired sessions and tokens and of past day counts; 0 turns it off)"),
    OUTBOX_POLL_MS: wholeNumber(0, 3_600_000, 1000, " (milliseconds between checks for events other instances wrote; 0 turns polling off)"),
    ANONYMOUS_SUBSCRIPTIONS_PER_ADDRESS: wholeNumber(0, 100_000, 100, " (anonymous subscriptions one address may hold; 0: no cap per address)"),
    OUTBOX_RETENTION_HOURS: wholeNumber(0, 24 * 365, 72, " (hours delivered events are kept)"),
    WEBHOOK_ALLOWED_ADDRESSES: commaSeparated(isAddressOrRange, "must be comma-separated IP addresses or CIDR ranges such as 127.0.0.1, 10.0.0.0/8 or ::1"),
    WEBHOOK_TIMEOUT_MS: wholeNumber(100, 120_000, 10_000, " (milliseconds a webhook request may take)"),
    WEBHOOK_RETRY_HOURS: wholeNumber(24, 24 * 30, 24, " (hours a webhook delivery is retried; at least a day)"),
    WEBHOOK_DISABLE_AFTER_FAILURES: wholeNumber(0, 1_000_000, 100, " (failed attempts in a row that disable an endpoint; 0: never)"),
    WEBHOOK_CONCURRENCY: wholeNumber(1, 256, 8, " (webhook requests sent at once)"),
    WEBHOOK_RETENTION_HOURS: wholeNumber(1, 24 * 365, 168, " (hours finished webhook deliveries are kept)"),
    REDIS_URL: optional(
      serviceUrl(["redis:", "rediss:"], "must be a Redis URL such as redis://host:6379 or rediss://user:password@host:6380/0 (leave it unset for one server process)"),
    ),
    REDIS_PREFIX: optional(z.string().regex(/^[\w:.-]{1,64}$/, "must be 1 to 64 letters, digits, _ : . or - (leave it unset to derive one from the database)")),
    CORS_ORIGINS: commaSeparated(isOrigin, "must be comma-separated origins such as https://app.example.com (scheme, host and port only)"),
    TRUST_PROXY: optional(
      z
        .string()
        .transform((value): boolean | number | string => (value === "true" ? true : value === "false" ? false : /^\d+$/.test(value) ? Number(value) : value))
        .refine(isTrustProxySetting, "must be true, false, a number of proxies, or addresses/subnets such as loopback or 10.0.0.0/8"),
    ),
    LOG_LEVEL: oneOf(LOG_LEVELS, "info"),
    METRICS_TOKEN: optional(z.string().min(16, "must be at least 16 characters long")),
    INTROSPECTION: oneOf(["public", "signed-in", "off"], "public"),
  })
  .superRefine((env, context) => {
    // One without the other was silently ignored before; now it is a mistake worth stopping for.
    if (Boolean(env.ADMIN_USERNAME) !== Boolean(env.ADMIN_PASSWORD)) {
      const missing = env.ADMIN_USERNAME ? "ADMIN_PASSWORD" : "ADMIN_USERNAME";
      context.addIssue({ code: "custom", path: [missing], message: "must be set too: ADMIN_USERNAME and ADMIN_PASSWORD go together" });
    }
  });

/** Variables whose values never appear in an error message. */
const SECRET = new Set(["ADMIN_PASSWORD", "DATABASE_URL", "METRICS_TOKEN", "REDIS_URL"]);

/** Reads and checks the environment; throws a StartupError naming every variable it cannot use. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const value = env[name];
      const got = value === undefined || value === "" ? "" : SECRET.has(name) ? " (value not shown)" : `, got ${JSON.stringify(value)}`;
      return `${name} ${issue.message}${got}`;
    });
    throw new StartupError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    cacheDir: e.CACHE_DIR === "off" ? undefined : e.CACHE_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    admin: e.ADMIN_USERNAME && e.ADMIN_PASSWORD ? { username: e.ADMIN_USERNAME, password: e.ADMIN_PASSWORD, email: e.ADMIN_EMAIL } : undefined,
    registration: e.REGISTRATION,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    refreshTokenGrace: e.REFRESH_TOKEN_GRACE,
    bearerCacheTtl: e.BEARER_CACHE_TTL,
    listenHeartbeat: e.LISTEN_HEARTBEAT,
    sessionTtl: e.SESSION_TTL,
    cookieSecure: e.COOKIE_SECURE === "true",
    bodyLimit: e.BODY_LIMIT,
    courseUploadLimitMb: e.COURSE_UPLOAD_LIMIT_MB,
    courseDefaultAssetGroups: e.COURSE_DEFAULT_ASSET_GROUPS,
    rateLimit: e.RATE_LIMIT,
    loginRateLimit: e.LOGIN_RATE_LIMIT,
    purgeInterval: e.PURGE_INTERVAL,
    outboxPollMs: e.OUTBOX_POLL_MS,
    anonymousSubscriptionsPerAddress: e.ANONYMOUS_SUBSCRIPTIONS_PER_ADDRESS,
    outboxRetentionHours: e.OUTBOX_RETENTION_HOURS,
    webhookAllowedAddresses: e.WEBHOOK_ALLOWED_ADDRESSES,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookRetryHours: e.WEBHOOK_RETRY_HOURS,
    webhookDisableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES,
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    webhookRetentionHours: e.WEBHOOK_RETENTION_HOURS,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    corsOrigins: e.CORS_ORIGINS,
    trustProxy: e.TRUST_PROXY ?? false,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    introspection: e.INTROSPECTION,
  };
}

/** An IPv4 or IPv6 address, or a CIDR range of either (WEBHOOK_ALLOWED_ADDRESSES). */
function isAddressOrRange(value: string): boolean {
  return ipaddr.isValid(value) || ipaddr.isValidCIDR(value);
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

/** Express compiles the setting (proxy-addr) when it is set, and throws on what it cannot use. */
function isTrustProxySetting(value: boolean | number | string): boolean {
  try {
    express().set("trust proxy", value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The URL people reach the server at, from the interface it binds and its port: `localhost` for every
 * interface (0.0.0.0, ::), IPv6 literals in brackets. The start-up line and the CLI's hints (seed --demo) say it.
 */
export function serverBaseUrl(host: string, port: number): string {
  const shown = ["0.0.0.0", "::"].includes(host) ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}
