// The same SQL as ours, for a bare handler (bench/bare-server.ts, /captured/<name>): the statements our app
// sends for one request of a case, recorded from an app opened in this process on the bench database (after
// one request to warm its caches: a bearer token's lookup, a search's counts), with their values.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { silentLogger } from "../src/observability/logger.js";
import { recordStatements, type SentStatement } from "../test/request-statements.js";

export interface CaptureRequest {
  name: string;
  method?: "GET" | "POST";
  path: string;
  /** Signs in as this user (BENCH_USER's password) and sends the token. */
  signedInAs?: string;
  body?: string;
}

/** Records each request's statements; writes them to `file` as { name: SentStatement[] } (test/request-statements.ts: the same statements the tests count). */
export async function captureStatements(databaseUrl: string, password: string, requests: CaptureRequest[], file: string): Promise<Record<string, SentStatement[]>> {
  const config = { ...loadConfig(), databaseUrl, rateLimit: 0, loginRateLimit: 0, admin: undefined };
  const app = await createApp({ config, inMemory: true, logger: silentLogger() });
  const server = await new Promise<http.Server>((resolve) => {
    const listening = http.createServer(app.app).listen(0, "127.0.0.1", () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const captured: Record<string, SentStatement[]> = {};
  try {
    for (const request of requests) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (request.signedInAs) {
        const response = await fetch(`${url}/api/developer/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: request.signedInAs, password }) });
        headers.authorization = `Bearer ${((await response.json()) as { access_token: string }).access_token}`;
      }
      const send = async () => {
        const response = await fetch(`${url}${request.path}`, { method: request.method ?? "GET", headers, body: request.body });
        if (!response.ok) throw new Error(`capturing ${request.name}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
        await response.text();
      };
      await send();
      captured[request.name] = (await recordStatements(app.db, send)).statements;
    }
  } finally {
    server.close();
    await app.close();
  }
  fs.writeFileSync(file, JSON.stringify(captured));
  return captured;
}
