import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { Config } from "../config.js";
import { ApiError } from "../common/errors.js";

/** 429 with Retry-After and the contract's error body. */
function tooMany(message: string): RequestHandler {
  return (req, res, next) => {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
    res.set("Retry-After", String(seconds));
    next(new ApiError(429, message));
  };
}

const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? "unknown");

/**
 * Failed sign-ins (token endpoint and cookie login) per address and account name: password guessing
 * gets 429 after `loginRateLimit` failures in 15 minutes; successful sign-ins do not count.
 */
export function signInLimiter(config: Config): RequestHandler {
  if (config.loginRateLimit === 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 15 * 60 * 1000,
    limit: config.loginRateLimit,
    skipSuccessfulRequests: true,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    keyGenerator: (req) => {
      const name = typeof req.body?.username === "string" ? req.body.username.toLowerCase() : "";
      return `${clientIp(req)}|${name}`;
    },
    handler: (req, res, next) => tooMany("Too many failed sign-in attempts; try again later.")(req, res, next),
  });
}

/** Requests per minute per caller: the signed-in user, or the address of anonymous callers. */
export function requestLimiter(config: Config): RequestHandler {
  if (config.rateLimit === 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60 * 1000,
    limit: config.rateLimit,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    keyGenerator: (req) => (req.viewer?.user ? `user:${req.viewer.user.id}` : `ip:${clientIp(req)}`),
    handler: (req, res, next) => tooMany("Rate limit exceeded; slow down.")(req, res, next),
  });
}
