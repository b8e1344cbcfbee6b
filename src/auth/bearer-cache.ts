import type { Viewer } from "../common/context.js";

/** What a live access token stands for: its user and its row. */
export interface Bearer {
  user: NonNullable<Viewer["user"]>;
  tokenId: number;
  expiresAt: Date;
}

/** The channel the auth_changed triggers notify (migration 20261125113000_bearer_cache). */
export const AUTH_CHANGED_CHANNEL = "hubgraph_auth_changed";

/**
 * A statement that may change what a token stands for (as the migration's triggers see it): this process
 * forgets its tokens as it sends one, not only when the notice comes back, so its own next request is
 * never answered from before the change.
 */
export const CHANGES_AUTH = /\b(?:UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:"?public"?\.)?"?(?:oauth_tokens|users)\b/i;

/**
 * Live access tokens this process has looked up, so a signed-in request does not pay a statement for its
 * token every time (every REST write paid three round trips to the database: the token, the write, the read
 * that answers it; docs/performance.md, "Writes").
 *
 * It never answers for longer than the database would: every statement that updates or deletes a token
 * or a user (a revocation, a refresh, a sign-out of every session, a deleted or demoted account, the purge),
 * from any process, notifies AUTH_CHANGED_CHANNEL when it commits (a trigger), and the notice empties the
 * cache. While notices cannot arrive (the listening connection is down) nothing is kept. A lookup that
 * began before a notice is not kept either (the generation check), so a token revoked while it was being
 * looked up is never remembered as live. Entries also end with the token, and after `ttlMs` in any case.
 * Only live tokens are kept: an unknown token costs its statement every time, so guessing fills nothing.
 */
export class BearerCache {
  private readonly entries = new Map<string, { bearer: Bearer; until: number }>();
  private generation = 0;
  private listening = false;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** Notices can (true) or cannot (false) arrive; either way what was kept may be stale. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }

  clear(): void {
    this.entries.clear();
    this.generation++;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bearer of a token hash, from the cache while it holds, else from `load` (kept if live and nothing changed meanwhile). */
  async lookup(tokenHash: string, load: () => Promise<Bearer | null>): Promise<Bearer | null> {
    const now = Date.now();
    const kept = this.entries.get(tokenHash);
    if (kept) {
      if (kept.until > now && kept.bearer.expiresAt.getTime() > now) return kept.bearer;
      this.entries.delete(tokenHash);
    }
    const generation = this.generation;
    const bearer = await load();
    if (!bearer || !this.listening || this.ttlMs <= 0 || generation !== this.generation) return bearer;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    Object.freeze(bearer.user);
    this.entries.set(tokenHash, { bearer, until: Math.min(Date.now() + this.ttlMs, bearer.expiresAt.getTime()) });
    return bearer;
  }
}
