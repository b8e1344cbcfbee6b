import { AsyncLocalStorage } from "node:async_hooks";
import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "../config.js";

export type { Logger };

export interface LoggerOptions {
  level: LogLevel;
  /** Where JSON lines go (tests capture them); default stdout. */
  destination?: DestinationStream;
  /** Human-readable lines through pino-pretty; default: when stdout is a terminal and no destination is given. */
  pretty?: boolean;
}

/**
 * The server's one logger: JSON lines with an ISO time and the level's name, or pino-pretty's coloured
 * lines on a terminal. pino-pretty runs as a transport (a worker thread), so it costs nothing when the
 * output is not a terminal (containers, log collectors).
 */
export function createLogger({ level, destination, pretty = !destination && process.stdout.isTTY === true }: LoggerOptions): Logger {
  if (pretty) {
    return pino({ level, transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" } } });
  }
  return pino(
    { level, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    destination,
  );
}

/** A logger that writes nothing (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

const requestLoggers = new AsyncLocalStorage<() => Logger>();

/**
 * Runs `next` with `logger` (made when first asked for) as the current request's logger, so code that has
 * no request at hand (GraphQL error masking, the facade's error reporting) still logs with the request id.
 */
export function runWithRequestLogger(logger: () => Logger, next: () => void): void {
  requestLoggers.run(logger, next);
}

/** The current request's logger, or `fallback` outside a request. */
export function currentLogger(fallback: Logger): Logger {
  return requestLoggers.getStore()?.() ?? fallback;
}
