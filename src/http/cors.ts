import type { RequestHandler } from "express";
import { ApiError } from "../common/errors.js";

/**
 * A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) from an origin that is not in
 * CORS_ORIGINS — any origin, when CORS_ORIGINS is unset — is answered 403 with the contract's error body
 * saying so, and no CORS headers: the browser refuses the call either way, but a developer looking at the
 * network tab reads why, instead of a bare 405 or 404. Preflights from listed origins go on to `cors`.
 */
export function refuseUnlistedPreflights(corsOrigins: string[]): RequestHandler {
  const allowed = new Set(corsOrigins);
  return (req, _res, next) => {
    const origin = req.get("origin");
    if (req.method !== "OPTIONS" || origin === undefined || !req.get("access-control-request-method") || allowed.has(origin)) return next();
    const message = allowed.size
      ? `Cross-origin calls from ${origin} are not enabled: it is not one of CORS_ORIGINS.`
      : "Cross-origin calls are not enabled on this server: set CORS_ORIGINS to the origins of the browser apps that may call it.";
    next(new ApiError(403, message));
  };
}
