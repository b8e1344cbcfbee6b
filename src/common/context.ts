import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";

/** Who is calling. `user` is null for anonymous callers. */
export interface Viewer {
  user: { id: number; username: string; isAdmin: boolean } | null;
  /** How the caller proved who they are; cookie sessions also carry the CSRF token they must echo. */
  via: "anonymous" | "token" | "session";
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
