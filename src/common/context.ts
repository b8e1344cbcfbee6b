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
  /**
   * The open write transaction's client, inside the write path (src/common/write-path.ts) or a keyed
   * operation (src/execution/conditions.ts): set only on a context derived for it, never on the request's; see `sqlOf`.
   */
  tx?: SqlClient;
  /**
   * What the execution core says about the operation it runs (If-Match, the Idempotency-Key) and is told
   * back (the key claimed, the version of the record answered): the one channel between the core and the
   * write path, typed. The core gives each operation its own (src/execution/core.ts).
   */
  conditions: OperationConditions;
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

/** An Idempotency-Key as the execution core hands it to the write path. */
export interface IdempotencyKey {
  key: string;
  /** The request (method, path and body or GraphQL parameters), hashed: a key reused for another request is 422. */
  fingerprint: string;
}

/**
 * One operation's write conditions. The execution core makes one per operation and reads it after; the
 * write path reads `ifMatch` and the key, and reports the claim and the version answered.
 */
export class OperationConditions {
  #keyClaimed = false;
  #version: string | undefined;
  #afterCommit: (() => void)[] = [];

  constructor(
    /** The versions an If-Match header accepts of the one record the operation changes (412 otherwise); null: no condition. */
    readonly ifMatch: readonly string[] | null = null,
    /** The Idempotency-Key the operation's first write claims, in its own statement; null: none. */
    readonly idempotencyKey: IdempotencyKey | null = null,
  ) {}

  /** The key, while no write of this operation has claimed it yet. */
  get unclaimedKey(): IdempotencyKey | null {
    return this.#keyClaimed ? null : this.idempotencyKey;
  }

  get keyClaimed(): boolean {
    return this.#keyClaimed;
  }

  /** A write's statement claimed the key (it is in the operation's transaction). */
  claimKey(): void {
    this.#keyClaimed = true;
  }

  /**
   * The version (row xmin, or its masked form) of the record a read or write answered last; undefined when
   * the last read found nothing the caller may see, so an answer of null carries no other record's version.
   */
  answered(version: string | undefined): void {
    this.#version = version;
  }

  get version(): string | undefined {
    return this.#version;
  }

  /** Work for once the operation's transaction has committed (`afterCommit`). */
  deferUntilCommitted(work: () => void): void {
    this.#afterCommit.push(work);
  }

  /** The operation committed (the execution core): its deferred work runs, once, each apart (`failed` hears what throws). */
  committed(failed: (error: unknown) => void): void {
    for (const work of this.#afterCommit.splice(0)) {
      try {
        work();
      } catch (error) {
        failed(error);
      }
    }
  }
}

/**
 * Runs `work` (a wake-up of a background sender: a nudge, safe to repeat) once what the operation wrote is
 * committed: now, outside any transaction; inside one, when the execution core ends the operation — a keyed
 * operation's after its one transaction commits (never when it was undone), any other's once it is over and
 * every write transaction it opened has ended. From inside, the work would find nothing committed yet, and a
 * statement it sends would run in that transaction's context (src/db/transaction-guard.ts refuses it).
 */
export function afterCommit(ctx: RequestContext, work: () => void): void {
  if (ctx.tx) ctx.conditions.deferUntilCommitted(work);
  else work();
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
 * A context like `ctx` with `extra` (a transaction, a confinement, an operation's conditions): a copy of its
 * properties, not an object over it (Object.create). An object made over another has a hidden class of its
 * own for each prototype — one per request — and turns the request's context into a prototype: every
 * property read of a context in every resolver and service then missed V8's inline caches (a REST read paid
 * ≈ 40 µs for it, docs/performance.md). Copies of one kind of context share one hidden class. `ctx`'s later
 * changes do not reach the copy, and the copy's do not reach `ctx`; objects it holds (`conditions`) are shared.
 * Never another viewer: a copy shares the request's Pothos caches (below), whose authorization answers are the
 * viewer's; a context for someone else is made with `createContext`.
 */
export const contextWith = <C extends object, E extends object & { viewer?: never }>(ctx: C, extra: E): C & E => ({ ...ctx, ...extra });

/**
 * Pothos keeps its per-request caches (scope-auth's answers, the Prisma plugin's loaders) in WeakMaps keyed
 * by the GraphQL context, or by the object under this symbol when the context has one (@pothos/core's
 * `initContextCache`). An operation runs with a context of its own, a copy of the request's
 * (src/execution/core.ts, `contextWith`), and its keyed writes with another: with the symbol, copied along,
 * they find the request's caches instead of each keying every cache anew (≈ 6–12 µs of a REST read,
 * docs/performance.md). Copies keep the request's viewer, so sharing the key shares nothing between callers.
 */
const POTHOS_CONTEXT_CACHE = Symbol.for("Pothos.contextCache");

/**
 * The one way to make a request context (HTTP requests, the CLI): every `defineLoader` cache (a scope
 * kind's memberships among them) belongs to this object, so it lives exactly as long as the request.
 */
export function createContext(db: PrismaClient, viewer: Viewer, config: Config): RequestContext {
  return { db, viewer, config, conditions: new OperationConditions(), [POTHOS_CONTEXT_CACHE]: {} } as RequestContext;
}
