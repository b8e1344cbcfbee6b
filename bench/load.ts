// One case's load: autocannon (programmatic API) with a fixed number of connections for a fixed time.
import autocannon from "autocannon";
import type { RequestSpec } from "./cases.js";

export interface Measurement {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  p50: number;
  p99: number;
  non2xx: number;
  /** Socket errors, timeouts, and 2xx answers whose body carries an "errors" key (GraphQL errors). */
  failures: number;
  statusCodes: Record<string, number>;
}

let running: autocannon.Instance | undefined;

/** Stops the load that is running, if any (Ctrl-C). */
export function stopLoad() {
  running?.stop();
}

export function measure(base: string, spec: RequestSpec, options: { connections: number; seconds: number }): Promise<Measurement> {
  const paths = Array.isArray(spec.path) ? spec.path : [spec.path];
  let next = 0;
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: options.connections,
        duration: options.seconds,
        timeout: 10,
        requests: [
          {
            method: spec.method ?? "GET",
            path: paths[0]!,
            headers: spec.headers,
            body: spec.body,
            // Every request takes the next path, so the read cases spread over many rows.
            ...(paths.length > 1 ? { setupRequest: (request: autocannon.Request) => ({ ...request, path: paths[next++ % paths.length]! }) } : {}),
          },
        ],
        verifyBody: (body) => !String(body).includes(`"errors":`),
      },
      (error, result) => {
        running = undefined;
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const at = (quantile: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))]! : NaN);
        const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, (stats as { count: number }).count]));
        const completed = result.requests.total;
        resolve({
          requests: completed,
          seconds: result.duration,
          requestsPerSecond: completed / result.duration,
          p50: at(0.5),
          p99: at(0.99),
          non2xx: result.non2xx,
          failures: result.errors + result.timeouts + result.mismatches,
          statusCodes,
        });
      },
    );
    instance.on("response", (_client, _status, _bytes, milliseconds) => latencies.push(milliseconds));
    running = instance;
  });
}

/** One request outside the load, to check the answer is the right one before measuring how fast it comes. */
export async function probe(base: string, spec: RequestSpec): Promise<{ status: number; body: unknown }> {
  const path = Array.isArray(spec.path) ? spec.path[0]! : spec.path;
  const response = await fetch(`${base}${path}`, { method: spec.method ?? "GET", headers: spec.headers, body: spec.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the error message.
  }
  return { status: response.status, body };
}
