import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";
import { loadGroupRoles } from "../groups/membership.js";

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

export interface GroupRoles {
  /** Groups the viewer is a member of (managers are members too). */
  member: Set<number>;
  /** Groups the viewer manages. */
  manager: Set<number>;
}

/** Everything a service needs for one request: the database, the caller and the configuration. */
export interface RequestContext {
  db: PrismaClient;
  viewer: Viewer;
  config: Config;
  /** The viewer's group roles, loaded at most once per request. */
  groupRoles(): Promise<GroupRoles>;
}

export const anonymous: Viewer = { user: null, via: "anonymous" };

/**
 * The one way to make a request context (HTTP requests, the CLI): group roles and every `defineLoader`
 * cache belong to this object, so they live exactly as long as the request.
 */
export function createContext(db: PrismaClient, viewer: Viewer, config: Config): RequestContext {
  const context: RequestContext = { db, viewer, config, groupRoles: () => loadGroupRoles(context) };
  return context;
}
