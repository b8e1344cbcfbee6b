import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";
import { sqlClientOf, type SqlClient } from "../db/sql.js";

/** Who is calling. `user` is null for anonymous callers. */
export interface Viewer {
  user: { id: number; username: string; isAdmin: boolean } | null;
  /** How the caller proved who they are; cookie sessions also carry the CSRF token they must echo. */
  via: "anonymous" | "token" | "session";
  /** The bearer token's row (`oauth_tokens.id`), when called with one: shown as "current", kept by "revoke the others". */
  tokenId?: number;
  /** The cookie session's row (`sessions.id`), when called with one. */
  sessionId?: number;
}

/** Everything a service needs for one request: the database, the caller and the configuration. */
export interface RequestContext {
  db: PrismaClient;
  viewer: Viewer;
  config: Config;
  /** The open write transaction's client, inside the write path (src/common/write-path.ts); see `sqlOf`. */
  tx?: SqlClient;
  /** The request's Idempotency-Key, claimed by the write path in the write's own transaction. */
  idempotency?: IdempotencyClaim;
  /** The versions an If-Match header accepts of the record a write changes (412 otherwise). */
  ifMatch?: string[];
  /** The version (row xmin) of the record a read or write answered last: REST record answers send it as ETag. */
  recordVersion?: string;
  /**
   * The one scope this request's record reads and writes may touch, when its path names it (a group
   * plugin path, src/groups/plugins.ts): the kit's reads and locks find no record outside it (404), and a
   * write that would put a record in another scope is 400 naming `scope`. Set by `withinScope` (src/common/scopes.ts).
   */
  confinedTo?: { scope: string; scopeId: number };
  /** A subscription request's Last-Event-ID: where a reconnecting subscriber left off (src/events/subscriptions.ts). */
  lastEventId?: string;
  /** The caller's address as the rate limits count it: anonymous subscriptions are capped per address. */
  clientAddress?: string;
}

/** An Idempotency-Key as the HTTP layer hands it to the write path. */
export interface IdempotencyClaim {
  key: string;
  /** Method, path and body of the request, hashed: a key reused for another request is 422. */
  fingerprint: string;
  /** Set by the write path once the key is claimed, so the HTTP layer knows to store the answer. */
  claimed?: boolean;
}

/**
 * The SQL client a service's statements must use: the write transaction's inside the write path, so the
 * kit's reads (findVisible, takenNames, scope checks) see what the transaction wrote and take part in its locks;
 * otherwise the pool's.
 */
export const sqlOf = (ctx: RequestContext): SqlClient => ctx.tx ?? sqlClientOf(ctx.db);

export const anonymous: Viewer = { user: null, via: "anonymous" };

/**
 * Whether `viewer` is shown the author of a record that can hide them (an anonymous forum post, activity
 * entry or event): when it does not hide them, to the author themselves, and to administrators. THE rule:
 * REST, GraphQL, subscriptions and webhooks ask it.
 */
export const authorShownTo = (viewer: Viewer, hidden: boolean | number, authorId: number | null): boolean =>
  !hidden || viewer.user?.isAdmin === true || (viewer.user !== null && viewer.user.id === authorId);

/**
 * The one way to make a request context (HTTP requests, the CLI): every `defineLoader` cache (a scope
 * kind's memberships among them) belongs to this object, so it lives exactly as long as the request.
 */
export function createContext(db: PrismaClient, viewer: Viewer, config: Config): RequestContext {
  return { db, viewer, config };
}
