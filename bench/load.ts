// One case's load: autocannon (programmatic API) with a fixed number of connections for a fixed time.
import autocannon from "autocannon";
import type { RequestSpec } from "./cases.js";

export interface Measurement {
  /** Answers completed inside the measured window. */
  requests: number;
  /** Length of the measured window. */
  seconds: number;
  requestsPerSecond: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  p50: number;
  p99: number;
  /** Over the whole load, warm-up included. */
  non2xx: number;
  /** Socket errors, timeouts, and 2xx answers whose body carries an "errors" key (GraphQL errors); whole load. */
  failures: number;
  statusCodes: Record<string, number>;
  /**
   * CPU time the server process spent per answer in the window (ms): unlike req/s, hardly affected by
   * what else the machine runs. The database's own CPU is not in it.
   */
  serverCpuMsPerAnswer: number | null;
}

/** A measurement and what combining it with others needs (not written to the report). */
export interface Slice {
  measurement: Measurement;
  /** Every answer's time in the window, ms. */
  latencies: number[];
  /** Server CPU in the window, ms; null where it cannot be read. */
  serverCpuMs: number | null;
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);

/** Several windows of one case as one measurement: answers over time, percentiles over every answer. */
export function combine(slices: Slice[]): Measurement {
  const latencies = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const requests = latencies.length;
  const seconds = slices.reduce((sum, slice) => sum + slice.measurement.seconds, 0);
  const statusCodes: Record<string, number> = {};
  for (const slice of slices) for (const [code, count] of Object.entries(slice.measurement.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const cpu = slices.every((slice) => slice.serverCpuMs !== null) ? slices.reduce((sum, slice) => sum + slice.serverCpuMs!, 0) : null;
  return {
    requests,
    seconds,
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    non2xx: slices.reduce((sum, slice) => sum + slice.measurement.non2xx, 0),
    failures: slices.reduce((sum, slice) => sum + slice.measurement.failures, 0),
    statusCodes,
    serverCpuMsPerAnswer: cpu !== null && requests ? cpu / requests : null,
  };
}

let running: autocannon.Instance | undefined;

/** Stops the load that is running, if any (Ctrl-C). */
export function stopLoad() {
  running?.stop();
}

/** The longest a slow case may take to reach steady state before its window opens anyway. */
const MAX_WARMUP_SECONDS = 60;

/**
 * One continuous load; what is measured is a window of `seconds` that opens after `warmupSeconds` and
 * once as many answers as there are connections have come back (steady state: when a case's answers take
 * seconds, a window opened at the start would catch only the first round and understate its rate).
 * Answers completed inside the window give req/s and the percentiles.
 */
export function measure(
  base: string,
  spec: RequestSpec,
  options: { connections: number; seconds: number; warmupSeconds: number; serverCpuMs: () => number | null },
): Promise<Slice> {
  const paths = Array.isArray(spec.path) ? spec.path : [spec.path];
  const bodies = spec.body === undefined ? [undefined] : Array.isArray(spec.body) ? spec.body : [spec.body];
  let next = 0;
  let nextBody = 0;
  const started = performance.now();
  let answers = 0;
  let windowStart: number | undefined;
  let windowEnd: number | undefined;
  const latencies: number[] = [];
  let cpuAtStart: number | null = null;
  let cpuAtEnd: number | null = null;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: options.connections,
        // Stopped by the window below; this is only the outer bound.
        duration: options.warmupSeconds + MAX_WARMUP_SECONDS + options.seconds + 5,
        timeout: 10,
        requests: [
          {
            method: spec.method ?? "GET",
            path: paths[0]!,
            headers: spec.headers,
            body: bodies[0],
            // Every request takes the next path (and body), so the read cases spread over many rows and
            // the write cases over many scopes.
            ...(paths.length > 1 || bodies.length > 1
              ? {
                  setupRequest: (request: autocannon.Request) => ({
                    ...request,
                    ...(paths.length > 1 ? { path: paths[next++ % paths.length]! } : {}),
                    ...(bodies.length > 1 ? { body: bodies[nextBody++ % bodies.length]! } : {}),
                  }),
                }
              : {}),
          },
        ],
        // `[<id>]` in a body: a new unique id per request (creates need unique names).
        idReplacement: bodies.some((body) => body?.includes("[<id>]")),
        verifyBody: (body) => !String(body).includes(`"errors":`),
      },
      (error, result) => {
        running = undefined;
        clearInterval(clock);
        if (error) return reject(error);
        latencies.sort((a, b) => a - b);
        const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, (stats as { count: number }).count]));
        const seconds = windowStart === undefined ? 0 : (Math.min(windowEnd!, performance.now()) - windowStart) / 1000;
        const serverCpuMs = cpuAtStart !== null && cpuAtEnd !== null ? cpuAtEnd - cpuAtStart : null;
        resolve({
          measurement: {
            requests: latencies.length,
            seconds,
            requestsPerSecond: seconds > 0 ? latencies.length / seconds : 0,
            p50: quantile(latencies, 0.5),
            p99: quantile(latencies, 0.99),
            non2xx: result.non2xx,
            failures: result.errors + result.timeouts + result.mismatches,
            statusCodes,
            serverCpuMsPerAnswer: serverCpuMs !== null && latencies.length ? serverCpuMs / latencies.length : null,
          },
          latencies,
          serverCpuMs,
        });
      },
    );
    const openWindow = (now: number) => {
      const warm = now - started >= options.warmupSeconds * 1000 && answers >= options.connections;
      if (warm || now - started >= (options.warmupSeconds + MAX_WARMUP_SECONDS) * 1000) {
        windowStart = now;
        windowEnd = now + options.seconds * 1000;
        cpuAtStart = options.serverCpuMs();
      }
    };
    const clock = setInterval(() => {
      const now = performance.now();
      if (windowStart === undefined) openWindow(now);
      else if (now >= windowEnd! && cpuAtEnd === null) {
        cpuAtEnd = options.serverCpuMs();
        instance.stop();
      }
    }, 20);
    instance.on("response", (_client, _status, _bytes, milliseconds) => {
      const now = performance.now();
      answers += 1;
      if (windowStart === undefined) return openWindow(now);
      if (now < windowEnd!) latencies.push(milliseconds);
    });
    running = instance;
  });
}

/** One request outside the load, to check the answer is the right one before measuring how fast it comes. */
export async function probe(base: string, spec: RequestSpec): Promise<{ status: number; body: unknown }> {
  const path = Array.isArray(spec.path) ? spec.path[0]! : spec.path;
  const sent = (Array.isArray(spec.body) ? spec.body[0] : spec.body)?.replaceAll("[<id>]", `probe${Date.now()}${Math.random().toString(36).slice(2)}`);
  const response = await fetch(`${base}${path}`, { method: spec.method ?? "GET", headers: spec.headers, body: sent });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the error message.
  }
  return { status: response.status, body };
}
