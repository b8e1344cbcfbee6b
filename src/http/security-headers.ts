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
  // helmet's headers depend on nothing in the request: they are worked out once, by running helmet on a
  // stand-in response, and each answer gets them in one step instead of through helmet's chain of a dozen
  // middlewares (a share of every request's CPU, docs/performance.md).
  const fixed = headersSetBy(headers);
  const secure = headersSetBy(hsts);
  return (req, res, next) => {
    for (const name of fixed.removed) res.removeHeader(name);
    for (const [name, value] of fixed.set) res.setHeader(name, value);
    if (req.secure) for (const [name, value] of secure.set) res.setHeader(name, value);
    next();
  };
}

/** The headers a middleware that only sets and removes headers (helmet's) sets and removes, run once on a stand-in. */
function headersSetBy(middleware: RequestHandler): { set: [string, string][]; removed: string[] } {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const response = {
    setHeader: (name: string, value: string) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let finished = false;
  middleware({ secure: true, headers: {} } as never, response as never, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error("the security headers middleware did not finish synchronously");
  return { set, removed };
}
