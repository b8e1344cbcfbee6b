import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import crypto from "node:crypto";
import { afterAll } from "vitest";
import { GraphQLClient, ClientError, type RequestOptions } from "graphql-request";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { loadConfig, type Config } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { hashPassword } from "../src/users/passwords.js";
import { createLogger, silentLogger, type Logger } from "../src/observability/logger.js";
import { createHttpServer } from "../src/http/server.js";
import { createScratchDatabase } from "./scratch-database.js";
import { migratedPgliteDump } from "./database-template.js";
import { checkingResponses } from "./openapi-responses.js";
import { recordStatements } from "./request-statements.js";

export { BEARER_LOOKUP } from "./request-statements.js";

/**
 * A real server on a loopback port over a real database: in-memory PGlite by default, or, when
 * DATABASE_URL names a PostgreSQL server, a database of its own created for this test file.
 */
export interface TestServer {
  url: string;
  app: App;
  kind: "pglite" | "postgresql";
  /** The scratch PostgreSQL database of this server (absent on PGlite), for a second connection of a test's own. */
  databaseUrl?: string;
  /** The SQL statements sent while `run` runs, but for bearer token lookups (the bearer cache decides those). */
  recordQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }>;
  /** Creates an account straight in the database and returns it with a bearer token from the token endpoint. */
  user(options?: { admin?: boolean; username?: string }): Promise<TestUser>;
  /** The usual cast for access tests: an administrator, two plain users, and a group with a member and a manager. */
  cast(groupCn: string): Promise<Cast>;
  rest(method: string, path: string, options?: RestOptions): Promise<RestResult>;
  graphql<R, V extends object>(document: TypedDocumentNode<R, V>, variables?: V, token?: string): Promise<GraphQLResult<R>>;
  /**
   * A GraphQL request from its text, answered as the server sent it (`errors` absent when there are none):
   * for documents outside the generated ones (subscriptions' and plugins' own fields, webhooks).
   */
  graphqlText<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<RawGraphQLAnswer<T>>;
  close(): Promise<void>;
}

/** A GraphQL answer as sent: `errors` only when there are some. */
export interface RawGraphQLAnswer<T> {
  data: T;
  errors?: { message: string; path?: string[]; extensions?: { code?: number | string; errors?: { parameter: string; message?: string }[]; [key: string]: unknown } }[];
}

export interface TestUser {
  id: number;
  username: string;
  password: string;
  token: string;
}

export interface Cast {
  admin: TestUser;
  alice: TestUser;
  bob: TestUser;
  member: TestUser;
  manager: TestUser;
  groupId: number;
}

export interface RestOptions {
  token?: string;
  /** Sent as JSON unless `form` is set. */
  body?: Record<string, unknown>;
  form?: Record<string, string>;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
}

export interface RestResult {
  status: number;
  headers: Headers;
  body: any;
}

export interface GraphQLResult<R> {
  data: R | null;
  errors: { message: string; extensions?: { code?: string; errors?: { parameter: string; message: string }[] } }[];
}

/**
 * One server for every suite of a test file that asks for it, started on first use and closed after the
 * file: for suites whose areas write tables, or scopes and groups, of their own (a start is ≈0.9 s of CPU).
 * Call it at the file's top level, where its afterAll belongs to that file.
 */
export function oneServerForFile(): () => Promise<TestServer> {
  let started: Promise<TestServer> | undefined;
  afterAll(async () => (await started)?.close());
  return () => (started ??= startServer());
}

export async function startServer(
  overrides: Partial<Config> = {},
  logger: Logger = silentLogger(),
  /** `via`: the URL the server itself connects with, given the scratch database's (a test's TCP proxy); `databaseUrl` stays the direct one. */
  options: { via?: (databaseUrl: string) => Promise<string> } = {},
): Promise<TestServer> {
  const base = loadConfig();
  let dropDatabase = async () => {};
  let databaseUrl: string | undefined;
  let serverUrl: string | undefined;
  if (base.databaseUrl) {
    const created = await createScratchDatabase(base.databaseUrl);
    databaseUrl = created.url;
    serverUrl = options.via ? await options.via(created.url) : created.url;
    dropDatabase = created.drop;
  }
  // Rate limits are off unless a test turns them on (test/rate-limits.test.ts): a suite sends hundreds of
  // requests a minute, many of them failed sign-ins, from one address.
  const config: Config = { ...base, admin: undefined, rateLimit: 0, loginRateLimit: 0, ...overrides, databaseUrl: serverUrl };
  const app = await createApp({ config, inMemory: true, initialDump: migratedPgliteDump(), logger });
  const server: Server = await new Promise((resolve) => {
    // Every /api response is checked against the OpenAPI document as it leaves (the docs cannot lie).
    const listening = createHttpServer(checkingResponses(app.app)).listen(0, "127.0.0.1", () => resolve(listening));
  });
  // The test's own client (fetch) and this server share one event loop. With Node's 5 s keep-alive, a loop
  // held by PGlite past it let the server close an idle connection in the same turn the client reused it:
  // the request never arrived (ECONNRESET; seen in thread-plan, follow and matrix runs on a loaded machine).
  // Kept open longer than the client keeps idle sockets (4 s), the client is always the one that closes.
  server.keepAliveTimeout = 120_000;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let users = 0;

  const rest: TestServer["rest"] = async (method, path, options = {}) => {
    const target = new URL(`/api${path}`, url);
    for (const [key, value] of Object.entries(options.query ?? {})) target.searchParams.append(key, String(value));
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(options.form).toString();
    } else if (options.body) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const response = await fetch(target, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  const testServer: TestServer = {
    url,
    app,
    kind: app.db.kind,
    async recordQueries(run) {
      const { result, statements } = await recordStatements(app.db, run);
      return { result, queries: statements.map((statement) => statement.text) };
    },
    async user(options = {}) {
      users += 1;
      const username = options.username ?? `user${users}_${crypto.randomBytes(3).toString("hex")}`;
      const password = `pw-${username}-secret`;
      const created = await app.db.prisma.user.create({
        data: { username, email: `${username}@example.test`, name: `Name of ${username}`, isAdmin: options.admin ?? false, passwordHash: await hashPassword(password) },
      });
      const token = await rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username, password } });
      if (token.status !== 200) throw new Error(`token request failed: ${JSON.stringify(token.body)}`);
      return { id: created.id, username, password, token: token.body.access_token };
    },
    async cast(groupCn) {
      const [admin, alice, bob, member, manager] = await Promise.all([
        testServer.user({ admin: true }),
        testServer.user(),
        testServer.user(),
        testServer.user(),
        testServer.user(),
      ]);
      // A cn holds lowercase letters and digits only (the groups_cn_check): the label without the rest.
      const group = await app.db.prisma.group.create({ data: { cn: groupCn.toLowerCase().replace(/[^a-z0-9]/g, ""), title: groupCn } });
      await app.db.prisma.groupMember.createMany({
        data: [
          { groupId: group.id, userId: member.id, status: "member" },
          { groupId: group.id, userId: manager.id, status: "member", manager: true },
        ],
      });
      return { admin, alice, bob, member, manager, groupId: group.id };
    },
    databaseUrl,
    rest,
    async graphql<R, V extends object>(document: TypedDocumentNode<R, V>, variables?: V, token?: string): Promise<GraphQLResult<R>> {
      const client = new GraphQLClient(`${url}/graphql`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      try {
        const data = await client.request<R, V>({ document, variables } as unknown as RequestOptions<V, R>);
        return { data, errors: [] };
      } catch (error) {
        if (error instanceof ClientError) {
          return { data: (error.response.data as never) ?? null, errors: (error.response.errors ?? []) as GraphQLResult<unknown>["errors"] };
        }
        throw error;
      }
    },
    async graphqlText(query, variables = {}, token) {
      const response = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as never;
    },
    async close() {
      // Connections still open when the test is over (a response whose body the test did not read) are
      // ended: server.close waits for them, up to the 120 s idle time above (test/graphiql.test.ts: 108 s).
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await app.close();
      await dropDatabase();
    },
  };
  return testServer;
}

/** A log line as the server writes it (pino's JSON). */
export interface LoggedLine {
  level: string;
  msg: string;
  err?: { message?: string; stack?: string };
  [field: string]: unknown;
}

/**
 * A logger for `startServer` that hands every line to `onLine`, so a test can assert what the server
 * logged (hostile-input tests: nothing at error level, nothing "unexpected").
 */
export function capturingLogger(onLine: (line: LoggedLine) => void): Logger {
  return createLogger({ level: "info", destination: { write: (line: string) => void onLine(JSON.parse(line) as LoggedLine) } });
}

/** A line that reports a fault of the server rather than of the client. */
export const isServerFault = (line: LoggedLine) => line.level === "error" || line.level === "fatal" || /unexpected/i.test(line.msg);
