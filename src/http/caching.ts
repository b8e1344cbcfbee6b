import type { Request, RequestHandler, Response } from "express";
import fresh from "fresh";

/**
 * Request headers that change what /api answers: who is calling (a bearer token or the session cookie)
 * and the version asked for in Accept. The other ways to ask for a version (`?v=`, `/api/v1.0/`) are
 * part of the URL, which every cache keys on anyway.
 */
export const VARY_HEADERS = ["Authorization", "Cookie", "Accept"];

/** Answers that carry secrets (access and refresh tokens, the session's CSRF token). */
const SECRET_PATHS = [/^\/developer\/oauth\/token\/?$/, /^\/session\/?$/];

/**
 * Cache headers for /api (docs/decisions.md, "HTTP caching"); mounted after the caller is identified.
 * Express itself gives every GET answer a weak ETag and turns it into 304 when If-None-Match matches;
 * this adds what lets caches use that safely. Reads are revalidated on every use (`no-cache`): a record
 * changes whenever someone writes it, and nothing would tell a cache. Answers to signed-in callers are
 * `private`, so only that caller's browser may keep them; writes and secrets are never stored.
 */
export function cacheHeaders(): RequestHandler {
  return (req, res, next) => {
    res.vary(VARY_HEADERS.join(", "));
    const read = req.method === "GET" || req.method === "HEAD";
    if (read) Object.defineProperty(req, "fresh", { configurable: true, get: () => matchesValidator(req, res) });
    if (!read || SECRET_PATHS.some((path) => path.test(req.path))) res.set("Cache-Control", "no-store");
    else res.set("Cache-Control", req.viewer?.user ? "private, no-cache" : "public, no-cache");
    next();
  };
}

/**
 * Express's `req.fresh` (which decides on 304) says "stale" whenever the request has `Cache-Control:
 * no-cache`, after RFC 2616's "end-to-end reload". But that directive is for caches: a request carrying
 * If-None-Match is already the revalidation it asks for, and fetch() adds `no-cache` to every request
 * with a hand-set If-None-Match, so such clients would never see a 304. RFC 9110 §13.1.2 evaluates
 * If-None-Match alone; this is `fresh` without that one rule.
 */
function matchesValidator(req: Request, res: Response): boolean {
  const status = res.statusCode;
  if (!((status >= 200 && status < 300) || status === 304)) return false;
  const { "cache-control": _cacheDirectives, ...conditions } = req.headers;
  return fresh(conditions, { etag: res.get("ETag"), "last-modified": res.get("Last-Modified") });
}
