import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * Security headers on every answer (helmet): X-Content-Type-Options, X-Frame-Options and
 * frame-ancestors (no framing), Referrer-Policy, Cross-Origin-Opener-Policy and a Content-Security-Policy
 * the server's own pages (/, GraphiQL, the API docs) work under: scripts and workers only from this server,
 * inline styles allowed (GraphiQL's editor and Swagger UI set style attributes), images and fonts also as
 * data: URLs. HSTS only on requests that arrived over HTTPS (directly, or through a trusted proxy that
 * said so in X-Forwarded-Proto): sent over plain HTTP it would be ignored, and a local http://localhost
 * must keep working.
 */
export function securityHeaders(): RequestHandler {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:"],
        fontSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", "blob:"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    strictTransportSecurity: false,
    // The API is called cross-origin when CORS_ORIGINS allows it; helmet's default same-origin would stop that.
    crossOriginResourcePolicy: false,
    xFrameOptions: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
  });
  const hsts = helmet.strictTransportSecurity({ maxAge: 180 * 24 * 3600 });
  return (req, res, next) => {
    headers(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (req.secure) return hsts(req, res, next);
      next();
    });
  };
}
