import express, { type NextFunction, type Request, type Response } from "express";
import { parse as parseCookies } from "cookie";
import type { PrismaClient, User } from "../generated/prisma/client.js";
import type { Config } from "../config.js";
import type { Viewer } from "../common/context.js";
import { ApiError, badInput, forbidden, unauthenticated } from "../common/errors.js";
import { findUserByCredentials } from "../users/service.js";
import { Prisma } from "../generated/prisma/client.js";
import { decodeTimestamp, sqlClientOf } from "../db/sql.js";
import { hashSecret, sameSecret } from "./secrets.js";
import { SESSION_COOKIE, endSession, findSession, startSession } from "./sessions.js";
import { createRevocationEndpoint, createTokenEndpoint } from "./oauth.js";
import { publicUser } from "../users/present.js";
import { signInLimiter, type LimiterCounts } from "./rate-limits.js";
import { isWellFormedText } from "../common/json-bounds.js";
import type { Bearer, BearerCache } from "./bearer-cache.js";

declare module "express-serve-static-core" {
  interface Request {
    viewer?: Viewer;
    session?: { id: number; csrfToken: string; user: User };
  }
}

export const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Works out who is calling, for every route: a bearer token first, else the session cookie, else
 * anonymous. A bearer token that is unknown or expired is refused outright (401) rather than quietly
 * treated as anonymous. Cookie-authenticated unsafe requests must echo the session's CSRF token.
 */
export function identifyCaller(db: PrismaClient, bearers: BearerCache) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    // Mounted on each surface and once for everything else (src/app.ts): a request falling through is not asked again.
    if (req.viewer) return next();
    try {
      const authorization = req.headers.authorization;
      if (authorization && /^bearer\s/i.test(authorization)) {
        const token = authorization.slice(7).trim();
        const tokenHash = hashSecret(token);
        const bearer = await bearers.lookup(tokenHash, () => bearerOf(db, tokenHash));
        if (!bearer) throw unauthenticated("The access token is invalid or has expired.");
        req.viewer = { user: bearer.user, via: "token", tokenId: bearer.tokenId };
        return next();
      }
      const cookieToken = req.headers.cookie ? parseCookies(req.headers.cookie)[SESSION_COOKIE] : undefined;
      const session = cookieToken ? await findSession(db, cookieToken) : null;
      if (session) {
        req.session = session;
        req.viewer = { user: viewerUser(session.user), via: "session", sessionId: session.id };
        const isLogin = req.method === "POST" && req.baseUrl + req.path === "/api/session";
        if (!SAFE_METHODS.has(req.method) && !isLogin) assertCsrfToken(req);
        return next();
      }
      req.viewer = { user: null, via: "anonymous" };
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * A cookie-authenticated request must echo its session's CSRF token in `X-CSRF-Token` (403 otherwise):
 * every unsafe method, and a GET that has effects (a facade row running a mutation: GET /plugins/trigger).
 * Requests not signed in by cookie pass.
 */
export function assertCsrfToken(req: Request): void {
  if (!req.session) return;
  const sent = req.get("x-csrf-token");
  if (!sent || !sameSecret(sent, req.session.csrfToken)) throw forbidden("Missing or wrong X-CSRF-Token header for a cookie-authenticated request.");
}

const viewerUser = (user: User) => ({ id: user.id, username: user.username, isAdmin: user.isAdmin });

/**
 * The user a live access token acts for, and the token's row, in one statement (a signed-in request pays
 * for it unless the bearer cache holds the token): the token, stored as its SHA-256 hash, and its user.
 * Null for an unknown or expired token.
 */
async function bearerOf(db: PrismaClient, tokenHash: string): Promise<Bearer | null> {
  const [row] = await sqlClientOf(db).query<{ id: number; username: string; isAdmin: boolean; expiresAt: string; tokenId: number }>(
    Prisma.sql`SELECT u.id, u.username, u.is_admin AS "isAdmin", t.access_token_expires_at AS "expiresAt", t.id AS "tokenId"
                 FROM oauth_tokens t JOIN users u ON u.id = t.user_id WHERE t.access_token_hash = ${tokenHash}`,
  );
  if (!row) return null;
  const expiresAt = decodeTimestamp(row.expiresAt);
  if (expiresAt <= new Date()) return null;
  return { user: { id: row.id, username: row.username, isAdmin: row.isAdmin }, tokenId: row.tokenId, expiresAt };
}

/** Token endpoint and cookie sessions: protocol endpoints, not resource operations, so not facade rows. */
export function authRoutes(db: PrismaClient, config: Config, counts?: LimiterCounts) {
  const router = express.Router();
  const tokenEndpoint = createTokenEndpoint(db, config);
  // Secure when COOKIE_SECURE says so, or when this request came over HTTPS: directly, or through a
  // proxy TRUST_PROXY trusts that said X-Forwarded-Proto: https (express's req.secure weighs both).
  const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: "lax" as const, secure: config.cookieSecure || req.secure, path: "/" });

  const limitSignIns = signInLimiter(config, db, counts);
  // A token request that carries a live session cookie must echo its X-CSRF-Token like any other (identifyCaller).
  router.post("/developer/oauth/token", limitSignIns, (req: Request, res: Response, next: NextFunction) => tokenEndpoint(req, res).catch(next));
  router.all("/developer/oauth/token", methodNotAllowed(["POST"]));
  // RFC 7009 revocation; failed client authentications count like failed sign-ins.
  const revocationEndpoint = createRevocationEndpoint(db);
  router.post("/developer/oauth/revoke", limitSignIns, (req: Request, res: Response, next: NextFunction) => revocationEndpoint(req, res).catch(next));
  router.all("/developer/oauth/revoke", methodNotAllowed(["POST"]));

  router.post("/session", limitSignIns, async (req: Request, res: Response, next: NextFunction) => {
    try {
      assertSignInFromTrustedPage(req, config);
      const username = req.body?.username;
      const password = req.body?.password;
      if (typeof username !== "string" || !username) throw badInput("username", "is required");
      if (typeof password !== "string" || !password) throw badInput("password", "is required");
      for (const [name, value] of Object.entries({ username, password })) {
        if (!isWellFormedText(value)) throw badInput(name, "must be well-formed Unicode text (no lone UTF-16 surrogates)");
        if (value.includes("\u0000")) throw badInput(name, "must not contain NUL characters");
      }
      const user = await findUserByCredentials(db, username, password);
      if (!user) throw unauthenticated("Invalid username and password combination.");
      if (req.session) await endSession(db, req.session.id);
      const { token, session } = await startSession(db, user.id, config.sessionTtl);
      res.cookie(SESSION_COOKIE, token, { ...cookieOptions(req), maxAge: config.sessionTtl * 1000 });
      res.status(201).json({ user: publicUser(user), csrfToken: session.csrfToken });
    } catch (error) {
      next(error);
    }
  });

  router.get("/session", (req, res, next) => {
    if (!req.session) return next(unauthenticated("No session."));
    res.json({ user: publicUser(req.session.user), csrfToken: req.session.csrfToken });
  });

  router.delete("/session", async (req, res, next) => {
    try {
      if (!req.session) throw unauthenticated("No session.");
      await endSession(db, req.session.id);
      res.clearCookie(SESSION_COOKIE, cookieOptions(req));
      res.status(204).end();
    } catch (error) {
      next(error);
    }
  });

  router.all("/session", methodNotAllowed(["GET", "POST", "DELETE"]));

  return router;
}

/**
 * Login CSRF: a page on another site must not be able to sign a visitor's browser in (for instance to
 * the attacker's account, to collect what the victim then writes). Browsers name the page's origin in
 * `Origin` (and `Sec-Fetch-Site`) on every cross-site POST, so a sign-in is accepted when:
 * it comes from this server's own origin or one of CORS_ORIGINS; or it carries an `X-CSRF-Token`
 * header (any value: a cross-site form cannot send one, and a cross-site script needs a CORS preflight
 * that only CORS_ORIGINS pass); or it comes from no browser at all (neither header: curl, server-side clients).
 */
function assertSignInFromTrustedPage(req: Request, config: Config): void {
  if (req.get("x-csrf-token")) return;
  const origin = req.get("origin");
  if (origin !== undefined) {
    if (config.corsOrigins.includes(origin) || sameHost(origin, req.get("host"))) return;
    throw forbidden("Signing in from a page of another origin needs an X-CSRF-Token header or that origin in CORS_ORIGINS.");
  }
  const site = req.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw forbidden("Signing in from a page of another origin needs an X-CSRF-Token header or that origin in CORS_ORIGINS.");
  }
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false; // "null" (sandboxed frames, some redirects) and anything unparsable
  }
}

/** Any other method on a protocol endpoint: 405 with Allow, not the facade's 404. */
function methodNotAllowed(allowed: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.set("Allow", allowed.join(", "));
    next(new ApiError(405, `${req.method} is not allowed on /api${req.path}; use ${allowed.join(" or ")}.`));
  };
}
