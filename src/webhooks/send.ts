import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import { checkDestination, RefusedDestination, type allowedRanges } from "./addresses.js";

/** How much of an answer's body an attempt keeps (and reads at all): the rest is never downloaded. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export type AttemptOutcome = "delivered" | "http_error" | "timeout" | "refused" | "network";

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** The answer's status, when one came. */
  status: number | null;
  durationMs: number;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body, as text. */
  response: string;
  error: string | null;
}

export interface SignedRequest {
  url: string;
  /** `whsec_…`: the endpoint's secret. */
  secret: string;
  /** `webhook-id`: the same on every attempt and replay of one delivery. */
  msgId: string;
  /** The exact bytes that are signed and sent. */
  body: string;
  /** `webhook-timestamp`: the attempt's time (the sender's clock). */
  timestamp: Date;
  timeoutMs: number;
  allowed: ReturnType<typeof allowedRanges>;
  /** How host names are resolved (tests: an answer that changes between lookups); default dns.lookup. */
  resolve?: Parameters<typeof checkDestination>[2];
}

/**
 * One attempt, following the Standard Webhooks specification: POSTs `body` with `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 by the `standardwebhooks` package). The URL is
 * checked again first (DNS may have changed since registration: src/webhooks/addresses.ts) and the socket
 * connects to the checked address only. Nothing is followed: a 3xx is a failed attempt like any non-2xx.
 * The whole exchange, from resolving the host name to the excerpt's last byte, must fit in `timeoutMs`. Never throws.
 */
class LookupTimeout extends Error {}

export async function sendSigned(request: SignedRequest): Promise<AttemptResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  let destination;
  // The host name's lookup counts against the attempt's time too: a resolver that hangs must not stretch an
  // attempt past the lease its delivery was claimed with (another sender would claim it again meanwhile).
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    destination = await Promise.race([
      checkDestination(request.url, request.allowed, request.resolve),
      new Promise<never>((_resolve, reject) => (lookupTimer = setTimeout(() => reject(new LookupTimeout()), request.timeoutMs))),
    ]);
  } catch (error) {
    if (error instanceof RefusedDestination) return { outcome: "refused", status: null, durationMs: took(), response: "", error: `the URL ${error.message}` };
    if (error instanceof LookupTimeout) return { outcome: "timeout", status: null, durationMs: took(), response: "", error: `the host name did not resolve within ${request.timeoutMs} ms` };
    throw error;
  } finally {
    clearTimeout(lookupTimer);
  }
  const remainingMs = Math.max(1, request.timeoutMs - took());
  const signature = new Webhook(request.secret).sign(request.msgId, request.timestamp, request.body);
  // The checked address, whatever the host name would resolve to now (no DNS rebinding).
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
  const { url } = destination;
  const client = url.protocol === "https:" ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      resolve({ ...result, error: result.error && result.error.slice(0, RESPONSE_EXCERPT_BYTES), durationMs: took() });
    };
    const req = client.request({
      protocol: url.protocol,
      hostname: destination.host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      // A connection of its own, never pooled: the pinned address is the one this request checked.
      agent: false,
      lookup: pinned,
      ...(url.protocol === "https:" && !destination.host.includes(":") && !/^[\d.]+$/.test(destination.host) ? { servername: destination.host } : {}),
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(request.body),
        "user-agent": "Hubgraph-Webhooks",
        "webhook-id": request.msgId,
        "webhook-timestamp": String(Math.floor(request.timestamp.getTime() / 1000)),
        "webhook-signature": signature,
      },
    });
    const deadline = setTimeout(() => finish({ outcome: "timeout", status: null, response: "", error: `no complete answer within ${request.timeoutMs} ms` }), remainingMs);
    req.on("error", (error: NodeJS.ErrnoException) => finish({ outcome: "network", status: null, response: "", error: error.code ? `${error.code}: ${error.message}` : error.message }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let length = 0;
      const done = () => {
        // PostgreSQL text holds no NUL: a receiver's binary answer must not make the attempt unrecordable.
        const response = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", "\uFFFD");
        if (status >= 200 && status < 300) return finish({ outcome: "delivered", status, response, error: null });
        const error = status >= 300 && status < 400 ? `redirect${res.headers.location ? ` to ${res.headers.location}` : ""} not followed` : `answered ${status}`;
        finish({ outcome: "http_error", status, response, error });
      };
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        // Enough of it: the rest is not read (a receiver cannot make the server download a large body).
        if (length >= RESPONSE_EXCERPT_BYTES) done();
      });
      res.on("end", done);
      res.on("error", (error) => finish({ outcome: "network", status, response: "", error: error.message }));
    });
    req.end(request.body);
  });
}
