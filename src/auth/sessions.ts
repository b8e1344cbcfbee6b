import type { PrismaClient } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { pageWindow, type Page, type PageArgs } from "../common/list-spec.js";
import { requireUser } from "../common/scopes.js";
import { parseId } from "../common/validation.js";
import { hashSecret, randomSecret } from "./secrets.js";

export const SESSION_COOKIE = "hubgraph_session";

/** Starts a cookie session; the returned token goes into the cookie and is stored only as a hash. */
export async function startSession(db: PrismaClient, userId: number, ttlSeconds: number) {
  const token = randomSecret();
  const session = await db.session.create({
    data: {
      tokenHash: hashSecret(token),
      csrfToken: randomSecret(),
      userId,
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    },
  });
  return { token, session };
}

export async function findSession(db: PrismaClient, token: string) {
  const session = await db.session.findUnique({ where: { tokenHash: hashSecret(token) }, include: { user: true } });
  if (!session) return null;
  if (session.expiresAt <= new Date()) {
    await db.session.deleteMany({ where: { id: session.id } });
    return null;
  }
  return session;
}

export async function endSession(db: PrismaClient, sessionId: number): Promise<void> {
  await db.session.deleteMany({ where: { id: sessionId } });
}

/** What a user sees of one of their cookie sessions: never the cookie value, its hash or its CSRF token. */
export interface OwnSession {
  id: number;
  created: Date;
  expires: Date;
  /** The session this request is authenticated with. */
  current: boolean;
}

/** The caller's live cookie sessions, newest first. */
export function listOwnSessions(ctx: RequestContext, args: PageArgs): Page<OwnSession> {
  const user = requireUser(ctx);
  const { take, skip } = pageWindow(args);
  const where = { userId: user.id, expiresAt: { gt: new Date() } };
  return {
    items: async () => {
      const rows = await ctx.db.session.findMany({ where, orderBy: [{ created: "desc" }, { id: "desc" }], take, skip });
      return rows.map((row) => ({ id: row.id, created: row.created, expires: row.expiresAt, current: row.id === ctx.viewer.sessionId }));
    },
    total: () => ctx.db.session.count({ where }),
  };
}

/** Ends one of the caller's sessions (the current one too: that signs the caller out). Another user's: 404. */
export async function revokeOwnSession(ctx: RequestContext, id: string | number): Promise<number> {
  const user = requireUser(ctx);
  const sessionId = parseId(id);
  const { count } = await ctx.db.session.deleteMany({ where: { id: sessionId, userId: user.id, expiresAt: { gt: new Date() } } });
  if (!count) throw notFound(`Session ${sessionId} not found.`);
  return sessionId;
}

/** Ends every session of the caller except the one this request uses (all of them with a bearer token). */
export async function revokeOtherSessions(ctx: RequestContext): Promise<number> {
  const user = requireUser(ctx);
  const { count } = await ctx.db.session.deleteMany({ where: { userId: user.id, NOT: ctx.viewer.sessionId ? [{ id: ctx.viewer.sessionId }] : [] } });
  return count;
}
