import crypto from "node:crypto";
import { Readable } from "node:stream";
import express from "express";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import { isLoopback } from "../observability/metrics.js";

/**
 * POST /_cli: runs a command line of the `hubgraph` CLI inside this server, on its open database, for the
 * CLI beside a server holding the embedded database (src/cli/local-access.ts). Only loopback callers with
 * the access file's token; anyone else gets 404, as if the route did not exist. Output is streamed as
 * JSON lines: {"stdout"}, {"stderr"}, and last {"exit"}.
 */
export function cliEndpoint(token: string, db: Database, config: Config): express.Router {
  const expected = crypto.createHash("sha256").update(token).digest();
  const router = express.Router();
  // Who is asking is checked before the body is read: to anyone else the route does not exist, not even as a 400 or 413.
  const onlyTheCli: express.RequestHandler = (req, _res, next) => {
    const given = /^Bearer\s+(\S+)$/.exec(req.get("authorization") ?? "")?.[1];
    const allowed = isLoopback(req.socket.remoteAddress) && given !== undefined && crypto.timingSafeEqual(crypto.createHash("sha256").update(given).digest(), expected);
    next(allowed ? undefined : "route");
  };
  router.post("/_cli", onlyTheCli, express.json({ limit: "64kb" }), async (req, res, next) => {
    const body = req.body as { argv?: unknown; stdin?: unknown };
    if (
      !Array.isArray(body?.argv) ||
      !body.argv.every((arg) => typeof arg === "string")
    ) {
      return next();
    }
    res.locals.operation = "POST /_cli";
    res.status(200).type("application/x-ndjson").set("Cache-Control", "no-store");
    const send = (message: object) => void res.write(`${JSON.stringify(message)}\n`);
    // Loaded on first use: the server does not need the CLI's commands until someone runs one.
    const { runCli } = await import("./program.js");
    const exit = await runCli(
      body.argv as string[],
      { stdout: (text) => send({ stdout: text }), stderr: (text) => send({ stderr: text }), stdin: Readable.from([typeof body.stdin === "string" ? body.stdin : ""]), env: process.env },
      { database: db, config },
    );
    send({ exit });
    res.end();
  });
  return router;
}
