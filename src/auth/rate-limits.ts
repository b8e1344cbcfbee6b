import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, MemoryStore, rateLimit, type IncrementResponse, type Options, type Store } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";
import { ApiError } from "../common/errors.js";
import { sqlClientOf } from "../db/sql.js";
import { signInAccountSql } from "../users/names.js";
import { hashSecret } from "./secrets.js";
import { clientCredentialsOf } from "./oauth.js";
import type { SharedRedis } from "../db/redis.js";

/** Where limiters count: in Redis, shared by every instance (REDIS_URL), or in this process (undefined). */
export interface LimiterCounts {
  redis: SharedRedis;
  /** Told (at most once a minute per limiter) when Redis fails and a limiter counts in this process instead. */
  warn: (line: string, error?: unknown) => void;
}

/**
 * Counts in Redis, shared by every instance; while Redis fails (down, or slower than its command timeout),
 * counts in this process's memory instead, as a server without REDIS_URL would, and says so in the log.
 * A request is never refused or failed for Redis's sake, and the limits never lapse: at worst, for the time
 * of the outage, each instance allows the limit on its own.
 */
class SharedStore implements Store {
  private readonly shared: RedisStore;
  private readonly local = new MemoryStore();
  private options?: Options;
  private ready: Promise<void> = Promise.resolve();
  private lastWarned = 0;

  constructor(
    private readonly counts: LimiterCounts,
    private readonly name: string,
  ) {
    this.shared = new RedisStore({ sendCommand: (...args: string[]) => counts.redis.sendCommand(...args) as never, prefix: `${counts.redis.prefix}rl:${name}:` });
  }

  init(options: Options): void {
    this.options = options;
    this.local.init(options);
    this.ready = this.shared.init(options);
    this.ready.catch(() => {});
  }

  private async either<T>(shared: () => Promise<T>, local: () => Promise<T> | T): Promise<T> {
    try {
      await this.ready;
      return await shared();
    } catch (error) {
      if (Date.now() - this.lastWarned > 60_000) {
        this.lastWarned = Date.now();
        this.counts.warn(`rate limiter ${this.name}: Redis (REDIS_URL) failed, counting in this process until it answers again`, error);
      }
      // Its scripts were never loaded (Redis failed at start): load them again next time.
      this.ready = this.ready.catch(() => this.shared.init(this.options!));
      this.ready.catch(() => {});
      return local();
    }
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.either(() => this.shared.increment(key), () => this.local.increment(key));
  }
  decrement(key: string): Promise<void> {
    return this.either(() => this.shared.decrement(key), () => this.local.decrement(key));
  }
  resetKey(key: string): Promise<void> {
    return this.either(() => this.shared.resetKey(key), () => this.local.resetKey(key));
  }
  get(key: string) {
    return this.either(() => this.shared.get(key), () => this.local.get(key));
  }
}

/** The store of the limiter `name`: Redis's with REDIS_URL, else express-rate-limit's memory store. */
const storeOf = (counts: LimiterCounts | undefined, name: string) => (counts ? { store: new SharedStore(counts, name) } : {});

/** 429 with Retry-After and the contract's error body. */
function tooMany(message: string): RequestHandler {
  return (req, res, next) => {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
    res.set("Retry-After", String(seconds));
    next(new ApiError(429, message));
  };
}

/** The caller's address as the limits count it (TRUST_PROXY decides req.ip; IPv6 by its /56, as express-rate-limit advises). */
export const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? "unknown");

/** Failed sign-ins from one address across every credential, as a multiple of LOGIN_RATE_LIMIT. */
export const ADDRESS_FACTOR = 10;

/**
 * What a sign-in attempt is trying to prove, so failures are counted against it: the account a login
 * name (username or e-mail address alike) belongs to, the refresh token (by hash), or the client id of
 * a client_credentials grant. An unknown login name counts as itself.
 */
async function attemptedCredential(db: PrismaClient, req: Request): Promise<string | null> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const given = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  if (body.grant_type === "refresh_token") {
    const token = given(body.refresh_token);
    return token && `refresh:${hashSecret(token)}`;
  }
  // A client's secret is proved by client_credentials grants and by revocation requests (RFC 7009).
  if (body.grant_type === "client_credentials" || req.path.endsWith("/oauth/revoke")) {
    const clientId = given(clientCredentialsOf(req).clientId);
    return clientId && `client:${clientId}`;
  }
  // No login name, token or client id: no credential is being guessed. Such requests are counted by the
  // address limiter only, never in one bucket shared by every caller behind the address (it was "account:",
  // seen in Redis as one key for all of them).
  const login = given(body.username);
  if (!login) return null;
  try {
    const [account] = await sqlClientOf(db).query<{ id: number }>(signInAccountSql(login));
    if (account) return `account:${Number(account.id)}`;
  } catch {
    // A name the database cannot even look up (the handler refuses it) counts as itself.
  }
  return `name:${login.toLowerCase()}`;
}

/**
 * Failed sign-ins on the token endpoint and cookie login. Each credential gets `loginRateLimit` failures
 * per 15 minutes from one address (an account's username and e-mail address are one credential; each
 * refresh token and each client id is its own), so one client's stale token does not lock out other
 * clients behind the same address, and a guesser cannot lock an account for callers elsewhere. Each
 * address also gets ten times that across all credentials, against spraying many names. Successful
 * sign-ins do not count.
 */
export function signInLimiter(config: Config, db: PrismaClient, counts?: LimiterCounts): RequestHandler[] {
  if (config.loginRateLimit === 0) return [];
  // Looked up once per request (skip and keyGenerator both ask).
  const credentials = new WeakMap<Request, Promise<string | null>>();
  const credentialOf = (req: Request) => {
    let found = credentials.get(req);
    if (!found) credentials.set(req, (found = attemptedCredential(db, req)));
    return found;
  };
  const common = {
    windowMs: 15 * 60 * 1000,
    skipSuccessfulRequests: true,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    handler: tooMany("Too many failed sign-in attempts; try again later."),
  } as const;
  return [
    rateLimit({ ...common, ...storeOf(counts, "sign-in-address"), limit: config.loginRateLimit * ADDRESS_FACTOR, keyGenerator: (req) => `address:${clientIp(req)}` }),
    rateLimit({
      ...common,
      ...storeOf(counts, "sign-in"),
      limit: config.loginRateLimit,
      skip: async (req) => (await credentialOf(req)) === null,
      keyGenerator: async (req) => `${clientIp(req)}|${await credentialOf(req)}`,
    }),
  ];
}

/** Requests per minute per caller: the signed-in user, or the address of anonymous callers. */
export function requestLimiter(config: Config, counts?: LimiterCounts): RequestHandler {
  if (config.rateLimit === 0) return (_req, _res, next) => next();
  return rateLimit({
    ...storeOf(counts, "requests"),
    windowMs: 60 * 1000,
    limit: config.rateLimit,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    keyGenerator: (req) => (req.viewer?.user ? `user:${req.viewer.user.id}` : `ip:${clientIp(req)}`),
    handler: (req, res, next) => tooMany("Rate limit exceeded; slow down.")(req, res, next),
  });
}
