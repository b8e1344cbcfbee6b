import crypto from "node:crypto";
import { StartupError } from "../config.js";

/**
 * The Redis that several server instances share (REDIS_URL; docs/instances.md): their rate-limit counters
 * (src/auth/rate-limits.ts) and the wake-up a commit of events sends to the other instances (src/common/outbox.ts `relayOutboxWrites`).
 *
 * Two connections: one for commands, one that only listens (a connection that subscribes can send nothing
 * else). The client library reconnects both after a loss, and subscribes again; commands sent while the
 * connection is down fail at once (no offline queue) rather than hold requests until it is back.
 */
export interface SharedRedis {
  /**
   * Key and channel prefix: REDIS_PREFIX, or, when it is unset, derived from the database's identity
   * (`derivedRedisPrefix`), set by the app once the database is open and before anything uses Redis.
   */
  prefix: string;
  /** Sends one command (rate-limit-redis's `sendCommand`); fails after `COMMAND_TIMEOUT_MS` rather than wait on a stalled server. */
  sendCommand(...args: string[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message on `channel` (prefixed); resolves once subscribed. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** How long a command may take before it counts as failed (a rate-limited request waits no longer). */
export const COMMAND_TIMEOUT_MS = 1000;

/** Log a lost connection once per this many milliseconds, not once per reconnect attempt. */
const WARN_EVERY_MS = 60_000;

/**
 * Connects to REDIS_URL, or throws a StartupError naming it: a server that cannot reach the Redis it was
 * told to share does not start (it would count rate limits alone without saying so).
 */
export async function connectRedis(url: string, prefix: string | undefined, warn: (line: string, error?: unknown) => void): Promise<SharedRedis> {
  let connected = false;
  let lastWarned = 0;
  const warnNow = (line: string, error?: unknown) => {
    if (Date.now() - lastWarned < WARN_EVERY_MS) return;
    lastWarned = Date.now();
    warn(line, error);
  };
  // Loaded here, not at the top: a server without REDIS_URL (the embedded default) never loads the client (a third of a second of start-up).
  const { createClient } = await import("redis");
  const client = createClient({
    url,
    disableOfflineQueue: true,
    // Checks the connection while nothing is sent, so a half-open one is noticed and replaced.
    pingInterval: 10_000,
    socket: {
      connectTimeout: 5000,
      // Before the first connection: give up (the start fails); after it, retry for as long as it takes.
      reconnectStrategy: (retries, cause) => (connected ? Math.min(50 * 2 ** retries, 2000) : cause),
    },
  });
  const subscriber = client.duplicate();
  for (const connection of [client, subscriber]) {
    connection.on("error", (error: Error) => connected && warnNow(`Redis (REDIS_URL) connection failed; reconnecting: ${error.message}`, error));
  }
  try {
    await client.connect();
    await subscriber.connect();
    connected = true;
  } catch (error) {
    for (const connection of [client, subscriber]) if (connection.isOpen) connection.destroy();
    throw new StartupError(`Cannot connect to Redis at ${describeRedisUrl(url)} (REDIS_URL): ${(error as Error).message}`, { cause: error });
  }
  const shared: SharedRedis = {
    prefix: prefix ?? "",
    sendCommand: (...args) => within(COMMAND_TIMEOUT_MS, client.sendCommand(args)),
    publish: async (channel, message) => void (await within(COMMAND_TIMEOUT_MS, client.publish(shared.prefix + channel, message))),
    subscribe: async (channel, listener) => void (await subscriber.subscribe(shared.prefix + channel, listener)),
    async close() {
      connected = false;
      await Promise.all(
        [client, subscriber].map(async (connection) => {
          if (!connection.isOpen) return;
          await connection.close().catch(() => connection.destroy());
        }),
      );
    },
  };
  return shared;
}

/**
 * REDIS_PREFIX's default: `hubgraph:` and a digest of the database's identity (src/db/database.ts,
 * `identity`), so every instance of one deployment (one database) agrees on it without being told, and two
 * deployments sharing a Redis never count each other's rate limits or wake each other (issue 32: a fresh
 * database refused a new account's sign-in with 429 because another deployment had counted failures).
 */
export const derivedRedisPrefix = (identity: string) => `hubgraph:${crypto.createHash("sha256").update(identity).digest("hex").slice(0, 16)}:`;

/** Settles as `promise` does, or fails after `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** host:port/db of a Redis URL, without its credentials. */
function describeRedisUrl(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}:${port || 6379}${pathname.length > 1 ? pathname : ""}`;
}
