import type { RequestHandler } from "express";
import { badInput } from "../src/common/errors.js";

export const DEFAULT_VERSION = "1.0";

/** The query parameters that choose a version (`?v=`, `?version=`): every request may carry them. */
export const VERSION_PARAMETERS = ["v", "version"] as const;

export interface AskedVersion {
  /** The version the client asked for, normalised to major.minor, or null when it asked none. */
  asked: string | null;
  /** The path with any /v<major>.<minor> prefix removed. */
  path: string;
}

const PATH_PREFIX = /^\/v(\d+)(?:\.(\d+))?(?=\/|$)/;
const ACCEPT = /application\/vnd\.[a-z0-9.-]+\.v(\d+)(?:\.(\d+))?(?:\+json)?/i;

function normalise(raw: string, parameter: string): string {
  const match = /^v?(\d+)(?:\.(\d+))?$/.exec(raw.trim());
  if (!match) throw badInput(parameter, "must be a version such as 1.0 or 1.1");
  return `${Number(match[1])}.${Number(match[2] ?? 0)}`;
}

/**
 * The contract's version precedence: `?v=` / `?version=`, then the Accept header
 * `application/vnd.<name>.v<major>.<minor>[+json]`, then a `/v<major>.<minor>/` path prefix.
 */
export function askedVersion(path: string, query: Record<string, unknown>, accept: string | undefined): AskedVersion {
  const prefix = PATH_PREFIX.exec(path);
  const rest = prefix ? path.slice(prefix[0].length) || "/" : path;
  for (const parameter of VERSION_PARAMETERS) {
    const value = query[parameter];
    if (typeof value === "string" && value !== "") return { asked: normalise(value, parameter), path: rest };
    if (value !== undefined && typeof value !== "string") throw badInput(parameter, "must be a single version such as 1.0");
  }
  const fromAccept = accept ? ACCEPT.exec(accept) : null;
  if (fromAccept) return { asked: `${Number(fromAccept[1])}.${Number(fromAccept[2] ?? 0)}`, path: rest };
  if (prefix) return { asked: `${Number(prefix[1])}.${Number(prefix[2] ?? 0)}`, path: rest };
  return { asked: null, path: rest };
}

/**
 * For everything under /api: works out the asked version, strips a /v<major>.<minor> prefix from the
 * URL (so protocol routes such as /api/v1.0/session work too), keeps the asked version in
 * `res.locals.askedVersion` for the facade, and sets X-API-Version on every response, errors included,
 * except when the asked version is none of `knownVersions`: an answer never names a version that does
 * not exist (the 404 for it names the versions that do).
 */
export function selectVersion(knownVersions: Iterable<string>): RequestHandler {
  const known = new Set(knownVersions);
  return (req, res, next) => {
    res.set("X-API-Version", DEFAULT_VERSION);
    try {
      const { asked, path } = askedVersion(req.path, req.query as Record<string, unknown>, req.get("accept"));
      res.locals.askedVersion = asked;
      if (asked && known.has(asked)) res.set("X-API-Version", asked);
      else if (asked) res.removeHeader("X-API-Version");
      if (path !== req.path) {
        const query = req.url.indexOf("?");
        req.url = query === -1 ? path : path + req.url.slice(query);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
