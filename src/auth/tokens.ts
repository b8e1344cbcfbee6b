import type { PrismaClient } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { pageWindow, type Page, type PageArgs } from "../common/list-spec.js";
import { requireUser } from "../common/scopes.js";
import { parseId } from "../common/validation.js";
import { hashSecret, randomSecret } from "./secrets.js";

/**
 * OAuth2 tokens as a service: revoking them by value (RFC 7009, the CLI), issuing one without a password
 * (the CLI), and a signed-in user's own tokens (list, revoke). A row holds one access token and, from the
 * token endpoint, the refresh token issued with it; rows descended from one sign-in share a family.
 */

/** Rows from before token families (and tokens issued without a refresh token) are a family of their own. */
export const familyOf = (row: { id: number; familyId: string | null }) => row.familyId ?? `token-${row.id}`;
export const inFamily = (family: string) => ({ OR: [{ familyId: family }, ...(family.startsWith("token-") ? [{ id: Number(family.slice(6)) }] : [])] });
export const revokeFamily = (db: PrismaClient, family: string) => db.oAuthToken.deleteMany({ where: inFamily(family) });

/**
 * Revokes a token given by its value. A refresh token takes its whole family with it (every access token
 * descended from that sign-in); an access token takes the refresh token issued with it, so the holder
 * cannot mint a new one (RFC 7009 §2.1 allows both). With `clientId`, only a token issued to that client
 * is revoked. Answers whether a token was revoked: false for unknown, spent or foreign tokens alike.
 */
export async function revokeTokenByValue(db: PrismaClient, token: string, { clientId }: { clientId?: string } = {}): Promise<boolean> {
  const hash = hashSecret(token);
  const row = await db.oAuthToken.findFirst({ where: { OR: [{ accessTokenHash: hash }, { refreshTokenHash: hash }] } });
  if (!row || (clientId !== undefined && row.clientId !== clientId)) return false;
  if (row.refreshTokenHash === hash) await revokeFamily(db, familyOf(row));
  else await db.oAuthToken.deleteMany({ where: { id: row.id } });
  return true;
}

/** Issues an access token (no refresh token) for a user and client, stored as a hash like the token endpoint's. */
export async function issueAccessToken(db: PrismaClient, userId: number, clientId: string, ttlSeconds: number) {
  const accessToken = randomSecret();
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  const row = await db.oAuthToken.create({ data: { accessTokenHash: hashSecret(accessToken), accessTokenExpiresAt: expiresAt, scope: "api", clientId, userId } });
  return { id: row.id, accessToken, expiresAt };
}

/** What a user sees of one of their tokens: never the token or its hash. */
export interface OwnToken {
  id: number;
  clientId: string;
  clientName: string;
  scope: string | null;
  /** When this access token was issued (a refresh issues a new one). */
  created: Date;
  accessTokenExpires: Date;
  /** Null for a token issued without a refresh token. */
  refreshTokenExpires: Date | null;
  /** The token this request is authenticated with. */
  current: boolean;
}

/** Live tokens: the newest pair of each sign-in (spent, rotated pairs are not listed) that still works for something. */
const liveTokensOf = (userId: number, now: Date) => ({
  userId,
  rotatedAt: null,
  OR: [{ accessTokenExpiresAt: { gt: now } }, { refreshTokenExpiresAt: { gt: now } }],
});

/** The caller's live OAuth2 tokens, newest first. */
export function listOwnTokens(ctx: RequestContext, args: PageArgs): Page<OwnToken> {
  const user = requireUser(ctx);
  const { take, skip } = pageWindow(args);
  const where = liveTokensOf(user.id, new Date());
  return {
    items: async () => {
      const rows = await ctx.db.oAuthToken.findMany({ where, include: { client: { select: { name: true } } }, orderBy: [{ created: "desc" }, { id: "desc" }], take, skip });
      return rows.map((row) => ({
        id: row.id,
        clientId: row.clientId,
        clientName: row.client.name,
        scope: row.scope,
        created: row.created,
        accessTokenExpires: row.accessTokenExpiresAt,
        refreshTokenExpires: row.refreshTokenExpiresAt,
        current: row.id === ctx.viewer.tokenId,
      }));
    },
    total: () => ctx.db.oAuthToken.count({ where }),
  };
}

/**
 * Revokes one of the caller's tokens by id, and with it the rest of its sign-in (its family), so a
 * refresh cannot bring it back. Another user's token, a spent one or an unknown id: 404 alike.
 */
export async function revokeOwnToken(ctx: RequestContext, id: string | number): Promise<number> {
  const user = requireUser(ctx);
  const tokenId = parseId(id);
  const row = await ctx.db.oAuthToken.findFirst({ where: { id: tokenId, ...liveTokensOf(user.id, new Date()) } });
  if (!row) throw notFound(`Token ${tokenId} not found.`);
  await revokeFamily(ctx.db, familyOf(row));
  return tokenId;
}

/** Revokes every token of the caller except the sign-in this request uses (all of them with a cookie session). */
export async function revokeOtherTokens(ctx: RequestContext): Promise<number> {
  const user = requireUser(ctx);
  const current = ctx.viewer.tokenId ? await ctx.db.oAuthToken.findUnique({ where: { id: ctx.viewer.tokenId } }) : null;
  const keep = current ? [inFamily(familyOf(current))] : [];
  const { count } = await ctx.db.oAuthToken.deleteMany({ where: { userId: user.id, NOT: keep } });
  return count;
}
