import http from "node:http";

/**
 * How long a client may take to send a request. Node's defaults (60 s for headers, 300 s for the whole
 * request, checked every 30 s) let a client that declares a body and never sends it hold a connection
 * and a request slot for five minutes. 20 s is enough for BODY_LIMIT (1 MB) at 50 KB/s.
 */
export const REQUEST_TIMEOUTS = {
  /** Headers complete. */
  headersMs: 10_000,
  /** Headers and body complete. */
  requestMs: 20_000,
  /** How often Node checks the two above; it can act this much late. */
  checkEveryMs: 1_000,
};

/** The HTTP server for the app, with request timeouts: a truncated or stalled request is answered 408 and dropped. */
export function createHttpServer(handler?: http.RequestListener, timeouts = REQUEST_TIMEOUTS): http.Server {
  return http.createServer(
    { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    handler,
  );
}
