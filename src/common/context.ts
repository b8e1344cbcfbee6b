import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";

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
}

export const anonymous: Viewer = { user: null, via: "anonymous" };

/**
 * The one way to make a request context (HTTP requests, the CLI): every `defineLoader` cache (a scope
 * kind's memberships among them) belongs to this object, so it lives exactly as long as the request.
 */
export function createContext(db: PrismaClient, viewer: Viewer, config: Config): RequestContext {
  return { db, viewer, config };
}
