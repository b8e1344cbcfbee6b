import OAuth2Server, { InvalidClientError, InvalidGrantError, InvalidRequestError, OAuthError, Request, Response, UnsupportedGrantTypeError } from "@node-oauth/oauth2-server";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import crypto from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Config } from "../config.js";
import { z } from "zod";
import type { RequestContext } from "../common/context.js";
import { requireUser } from "../common/scopes.js";
import { parseInput } from "../common/validation.js";
import { findUserByCredentials } from "../users/service.js";
import { hashSecret, randomSecret, sameSecret } from "./secrets.js";
import { isWellFormedText } from "../common/json-bounds.js";
import { familyOf, inFamily, revokeFamily, revokeTokenByValue } from "./tokens.js";

/** The built-in public client: first-party apps may omit client_id entirely. */
export const FIRST_PARTY_CLIENT_ID = "hubgraph";

export async function ensureFirstPartyClient(db: PrismaClient): Promise<void> {
  await db.oAuthClient.upsert({
    where: { id: FIRST_PARTY_CLIENT_ID },
    create: { id: FIRST_PARTY_CLIENT_ID, name: "Hubgraph first-party apps", grants: ["password", "refresh_token"] },
    update: {},
  });
}

const clientName = z.string().trim().min(1, "must not be empty").max(100);

/** Registers a confidential client owned by the caller; the secret is returned once and stored hashed. */
export async function registerClient(ctx: RequestContext, name: unknown) {
  const owner = requireUser(ctx);
  const validName = parseInput(z.object({ name: clientName }), { name }).name;
  const secret = randomSecret();
  const client = await ctx.db.oAuthClient.create({
    data: {
      id: `client_${randomSecret().slice(0, 20)}`,
      name: validName,
      ownerId: owner.id,
      secretHash: hashSecret(secret),
      grants: ["client_credentials", "password", "refresh_token"],
    },
  });
  return { client, secret };
}

/**
 * The user the model hands the library; on a refresh it carries the family of the token being exchanged
 * and that token itself, whose row keeps the new pair sealed for the grace period.
 */
interface TokenUser {
  id: number;
  username: string;
  tokenFamily?: string;
  exchangedRefreshToken?: string;
}

/** What a refresh answered, as kept (sealed) for a retry within the grace period. */
interface SealedPair {
  accessToken: string;
  accessTokenExpiresAt: string;
  refreshToken?: string;
  scope?: string;
}

/**
 * The key that seals a refresh's new pair: derived from the exchanged refresh token, which only its holder
 * knows (the database keeps its SHA-256 hash, a different derivation), so a sealed pair is useless to
 * anyone reading the database.
 */
const graceKey = (refreshToken: string) => crypto.createHash("sha256").update(`hubgraph refresh grace\u0000${refreshToken}`).digest();

function sealPair(refreshToken: string, pair: SealedPair): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", graceKey(refreshToken), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(pair), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

function openPair(refreshToken: string, sealed: string): SealedPair | null {
  try {
    const bytes = Buffer.from(sealed, "base64url");
    const decipher = crypto.createDecipheriv("aes-256-gcm", graceKey(refreshToken), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")) as SealedPair;
  } catch {
    return null;
  }
}

/** Whether a refresh token exchanged at `rotatedAt` is still within the grace period. */
const withinGrace = (rotatedAt: Date, graceSeconds: number, now = Date.now()) => now - rotatedAt.getTime() < graceSeconds * 1000;

/** How long a retry waits for the exchange it repeats to seal its pair (that exchange is milliseconds from done). */
const SEAL_WAIT_MS = 3000;

/**
 * The pair a refresh token was exchanged for, when it is presented again within the grace period by the
 * client it was issued to (a retry after a lost answer, or parallel refreshes of one app): null otherwise.
 * Waits briefly for a concurrent exchange that has marked the token but not yet sealed its pair.
 */
async function pairWithinGrace(db: PrismaClient, refreshToken: string, clientId: string, graceSeconds: number): Promise<SealedPair | null> {
  if (graceSeconds === 0) return null;
  const deadline = Date.now() + SEAL_WAIT_MS;
  for (;;) {
    const row = await db.oAuthToken.findUnique({ where: { refreshTokenHash: hashSecret(refreshToken) }, select: { rotatedAt: true, graceSealed: true, clientId: true } });
    if (!row?.rotatedAt || row.clientId !== clientId || !withinGrace(row.rotatedAt, graceSeconds)) return null;
    if (row.graceSealed) return openPair(refreshToken, row.graceSealed);
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The storage model @node-oauth/oauth2-server calls; tokens never touch the database in clear text. */
function oauthModel(db: PrismaClient, graceSeconds = 0): OAuth2Server.PasswordModel & OAuth2Server.RefreshTokenModel & OAuth2Server.ClientCredentialsModel {
  const asUser = (user: { id: number; username: string }) => ({ id: user.id, username: user.username });
  return {
    async getClient(clientId, clientSecret) {
      const client = await db.oAuthClient.findUnique({ where: { id: clientId } });
      if (!client) return false;
      // Confidential clients must always prove themselves, whatever the grant.
      if (client.secretHash && !(clientSecret && sameSecret(client.secretHash, hashSecret(clientSecret)))) return false;
      return { id: client.id, grants: client.grants, ownerId: client.ownerId };
    },
    async getUser(username, password) {
      const user = await findUserByCredentials(db, username, password);
      return user ? asUser(user) : false;
    },
    async getUserFromClient(client) {
      if (!client.ownerId) return false;
      const owner = await db.user.findUnique({ where: { id: client.ownerId as number } });
      return owner ? asUser(owner) : false;
    },
    async saveToken(token, client, user) {
      // A refreshed token stays in the family of the one it replaces (see getRefreshToken); a sign-in starts one.
      const inherited = (user as TokenUser).tokenFamily;
      const saved = await db.oAuthToken.create({
        data: {
          familyId: inherited ?? crypto.randomUUID(),
          accessTokenHash: hashSecret(token.accessToken),
          accessTokenExpiresAt: token.accessTokenExpiresAt!,
          refreshTokenHash: token.refreshToken ? hashSecret(token.refreshToken) : null,
          refreshTokenExpiresAt: token.refreshTokenExpiresAt ?? null,
          scope: token.scope?.join(" ") || null,
          clientId: client.id,
          userId: user.id as number,
        },
      });
      // A replay may have revoked the family while this exchange ran. Checked after saving, so a revocation
      // either ran before the check (the token it replaces is gone: undo) or runs after it and takes this one
      // too; only a revocation whose DELETE is in flight during the check can miss it.
      if (inherited && (await db.oAuthToken.count({ where: { AND: [inFamily(inherited), { NOT: { id: saved.id } }] } })) === 0) {
        await db.oAuthToken.deleteMany({ where: { id: saved.id } });
        throw new InvalidGrantError("Invalid grant: refresh token is invalid");
      }
      const exchanged = (user as TokenUser).exchangedRefreshToken;
      if (exchanged && graceSeconds > 0) {
        // Kept on the spent token's row (in the database, so every server process sees it) for retries.
        const pair: SealedPair = { accessToken: token.accessToken, accessTokenExpiresAt: token.accessTokenExpiresAt!.toISOString(), refreshToken: token.refreshToken, scope: token.scope?.join(" ") };
        await db.oAuthToken.updateMany({ where: { refreshTokenHash: hashSecret(exchanged) }, data: { graceSealed: sealPair(exchanged, pair) } });
      }
      return { ...token, client, user };
    },
    async getAccessToken(accessToken) {
      const row = await db.oAuthToken.findUnique({ where: { accessTokenHash: hashSecret(accessToken) }, include: { user: true } });
      if (!row) return false;
      return {
        accessToken,
        accessTokenExpiresAt: row.accessTokenExpiresAt,
        scope: row.scope ? row.scope.split(" ") : undefined,
        client: { id: row.clientId, grants: [] },
        user: asUser(row.user),
      };
    },
    async getRefreshToken(refreshToken) {
      const row = await db.oAuthToken.findUnique({
        where: { refreshTokenHash: hashSecret(refreshToken) },
        include: { user: true, client: true },
      });
      if (!row) return false;
      const family = familyOf(row);
      if (row.rotatedAt) {
        // Within the grace period this is a retry, answered with the same pair by the token endpoint.
        if (withinGrace(row.rotatedAt, graceSeconds)) return false;
        // Reuse of a spent refresh token: it was stolen, or its holder's copy was. Either way nobody can
        // tell which party holds the newest token, so every token of the family goes (RFC 9700 §4.14.2).
        await revokeFamily(db, family);
        return false;
      }
      return {
        refreshToken,
        refreshTokenExpiresAt: row.refreshTokenExpiresAt ?? undefined,
        scope: row.scope ? row.scope.split(" ") : undefined,
        client: { id: row.client.id, grants: row.client.grants },
        // The library hands this user to saveToken for the new pair, which so inherits the family.
        user: { ...asUser(row.user), tokenFamily: family, exchangedRefreshToken: refreshToken } satisfies TokenUser,
      };
    },
    async revokeToken(token) {
      // Rotation: the old pair stops working as soon as it is exchanged. The row stays, marked, until its
      // refresh token expires, so that a replay is recognised; its access token expires now.
      const now = new Date();
      // Of two requests exchanging one token at the same moment only one marks it; the other is refused.
      const { count } = await db.oAuthToken.updateMany({
        where: { refreshTokenHash: hashSecret(token.refreshToken), rotatedAt: null },
        data: { rotatedAt: now, accessTokenExpiresAt: now },
      });
      return count > 0;
    },
    async validateScope(_user, _client, scope) {
      // One scope for now; asking for anything else is invalid_scope rather than silently granted.
      return !scope || scope.every((name) => name === "api") ? ["api"] : false;
    },
  };
}

/** The grants this server implements; the library also knows others (authorization_code) that the model does not. */
export const SUPPORTED_GRANTS = new Set(["password", "refresh_token", "client_credentials"]);

export function createTokenEndpoint(db: PrismaClient, config: Config) {
  const server = new OAuth2Server({
    model: oauthModel(db, config.refreshTokenGrace),
    accessTokenLifetime: config.accessTokenTtl,
    refreshTokenLifetime: config.refreshTokenTtl,
    requireClientAuthentication: { password: false, refresh_token: false },
  });

  /** POST /api/developer/oauth/token, form or JSON body, client credentials in the body or HTTP Basic. */
  return async function tokenEndpoint(req: ExpressRequest, res: ExpressResponse) {
    const body: Record<string, unknown> = { ...(req.body ?? {}) };
    if (!body.client_id && !req.headers.authorization) body.client_id = FIRST_PARTY_CLIENT_ID;
    const request = new Request({
      method: "POST",
      query: {},
      // The library only reads form bodies; express has already parsed JSON and form bodies alike.
      headers: { ...(req.headers as Record<string, string>), "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const response = new Response({ headers: {} });
    try {
      // Checked before the library, which otherwise reports a missing or unknown grant_type of the public
      // client as invalid_client (it asks for a client secret for any grant it has no rule for).
      assertStringParameters(body);
      const grantType = body.grant_type;
      if (typeof grantType !== "string" || !grantType) throw new InvalidRequestError("Missing parameter: `grant_type`");
      if (!SUPPORTED_GRANTS.has(grantType)) throw new UnsupportedGrantTypeError("Unsupported grant type: `grant_type` is invalid");
      const token = await server.token(request, response);
      res.status(200).set("Cache-Control", "no-store").json({
        access_token: token.accessToken,
        token_type: "Bearer",
        expires_in: config.accessTokenTtl,
        ...(token.refreshToken ? { refresh_token: token.refreshToken } : {}),
        scope: token.scope?.join(" ") ?? "api",
      });
    } catch (error) {
      // A refresh token exchanged moments ago (parallel refreshes, a retry after a lost answer): the same
      // pair again, within REFRESH_TOKEN_GRACE seconds, to the client it was issued to. The library has
      // authenticated that client by now (a bad one is invalid_client, not invalid_grant).
      if (error instanceof InvalidGrantError && body.grant_type === "refresh_token" && typeof body.refresh_token === "string") {
        const clientId = clientCredentialsOf(req).clientId || FIRST_PARTY_CLIENT_ID;
        const pair = await pairWithinGrace(db, body.refresh_token, clientId, config.refreshTokenGrace);
        if (pair) {
          res.status(200).set("Cache-Control", "no-store").json({
            access_token: pair.accessToken,
            token_type: "Bearer",
            expires_in: Math.max(0, Math.round((Date.parse(pair.accessTokenExpiresAt) - Date.now()) / 1000)),
            ...(pair.refreshToken ? { refresh_token: pair.refreshToken } : {}),
            scope: pair.scope ?? "api",
          });
          return;
        }
      }
      sendOAuthError(res, error);
    }
  };
}

/**
 * Every token request parameter is a string (RFC 6749 form encoding); JSON objects must never reach the
 * model, where they would become Prisma filters.
 */
function assertStringParameters(body: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(body)) {
    if (value !== undefined && typeof value !== "string") throw new InvalidRequestError(`Invalid parameter: \`${key}\` must be a string`);
    if (typeof value === "string" && (!isWellFormedText(value) || value.includes("\u0000"))) {
      throw new InvalidRequestError(`Invalid parameter: \`${key}\` must be well-formed Unicode text without NUL characters`);
    }
  }
}

/** An OAuth error as RFC 6749 §5.2 answers it, with the contract's `message` and `code`; anything else is rethrown. */
function sendOAuthError(res: ExpressResponse, error: unknown): void {
  if (!(error instanceof OAuthError)) throw error;
  // The library wraps unexpected failures as server_error with the cause's message: never show that.
  if (error.name === "server_error") throw (error as OAuthError & { inner?: unknown }).inner ?? error;
  // Failed client authentication is 401 however the client sent its credentials (RFC 6749 §5.2 allows it;
  // the contract wants 401 for bad credentials), not the library's 400 for credentials in the body.
  const status = error.name === "invalid_client" ? 401 : (error.code ?? 400);
  if (status === 401) res.set("WWW-Authenticate", 'Basic realm="hubgraph"');
  res.status(status).set("Cache-Control", "no-store").json({
    error: error.name,
    error_description: error.message,
    message: error.message,
    code: status,
  });
}

/** The client credentials of a request: HTTP Basic (RFC 6749 §2.3.1, both parts form-encoded) or the body's. */
export function clientCredentialsOf(req: ExpressRequest): { clientId?: string; clientSecret?: string } {
  const basic = /^basic\s+(\S+)/i.exec(req.headers.authorization ?? "")?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, "base64").toString();
    const colon = decoded.indexOf(":");
    if (colon < 0) return {};
    try {
      return { clientId: decodeURIComponent(decoded.slice(0, colon)), clientSecret: decodeURIComponent(decoded.slice(colon + 1)) };
    } catch {
      return {};
    }
  }
  const { client_id: clientId, client_secret: clientSecret } = (req.body ?? {}) as Record<string, unknown>;
  return { clientId: typeof clientId === "string" ? clientId : undefined, clientSecret: typeof clientSecret === "string" ? clientSecret : undefined };
}

/**
 * POST /api/developer/oauth/revoke (RFC 7009): `token`, optional `token_type_hint`, form or JSON body.
 * Clients authenticate as at the token endpoint: confidential clients with their secret (body or HTTP
 * Basic; wrong or missing: 401 invalid_client), the first-party public client by naming itself or by
 * nothing at all. Any token answers 200 with an empty body — unknown, already revoked, or issued to
 * another client (then it is not revoked) — so the endpoint tells nobody whether a token exists (§2.2).
 */
export function createRevocationEndpoint(db: PrismaClient) {
  const model = oauthModel(db);
  return async function revocationEndpoint(req: ExpressRequest, res: ExpressResponse) {
    const body: Record<string, unknown> = { ...(req.body ?? {}) };
    try {
      assertStringParameters(body);
      const { clientId, clientSecret } = clientCredentialsOf(req);
      const client = await model.getClient(clientId || FIRST_PARTY_CLIENT_ID, clientSecret ?? "");
      if (!client) throw new InvalidClientError("Invalid client: client is invalid");
      if (typeof body.token !== "string" || !body.token) throw new InvalidRequestError("Missing parameter: `token`");
      // token_type_hint only saves a lookup (§2.1); both kinds are found in one statement, so it is not needed.
      await revokeTokenByValue(db, body.token, { clientId: client.id as string });
      res.status(200).set("Cache-Control", "no-store").end();
    } catch (error) {
      sendOAuthError(res, error);
    }
  };
}
