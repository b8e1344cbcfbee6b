import type { PrismaClient } from "../generated/prisma/client.js";
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

export async function findBearer(db: PrismaClient, token: string) {
  const row = await db.oAuthToken.findUnique({ where: { accessTokenHash: hashSecret(token) }, include: { user: true } });
  return row && row.accessTokenExpiresAt > new Date() ? row : null;
}
