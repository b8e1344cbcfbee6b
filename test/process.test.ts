// The server as an operator starts it: built (dist/src/main.js, as `npm start` runs it; test/built.ts) in a
// process of its own, configured by the environment, stopped by signals.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolders } from "./temporary-folders.js";
import { BUILT_CLI, BUILT_SERVER, CLI_NODE_ARGS } from "./built.js";

interface Started {
  child: ChildProcess;
  /** Every line the process wrote to stdout or stderr. */
  lines: string[];
  exit: Promise<number | null>;
  /** Resolves with the first line matching, or rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<string>;
}

const root = path.resolve(import.meta.dirname, "..");
const children = new Set<ChildProcess>();
afterAll(() => {
  // A test that failed may leave its server running.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function start(env: Record<string, string>): Started {
  // The process tests are about the process: always the embedded database unless a test says otherwise,
  // and no inherited LOG_LEVEL or METRICS_TOKEN changing what it writes.
  const { DATABASE_URL: _url, LOG_LEVEL: _level, METRICS_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(process.execPath, [BUILT_SERVER], {
    cwd: root,
    env: { ...inherited, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const complete = buffered.split("\n");
      buffered = complete.pop()!;
      for (const line of complete.filter(Boolean)) {
        lines.push(line);
        for (const waiter of waiters) if (waiter.pattern.test(line)) waiter.resolve(line);
      }
    });
  }
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    lines,
    exit,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const found = lines.find((line) => pattern.test(line));
        if (found) return resolve(found);
        waiters.add({ pattern, resolve });
        void exit.then((code) => reject(new Error(`exited with ${code} before logging ${pattern}:\n${lines.join("\n")}`)));
      }),
  };
}

/** The base URL from the server's "ready" line. */
async function ready(server: Started): Promise<string> {
  const line = await server.waitFor(/Hubgraph ready/);
  return (JSON.parse(line) as { url: string }).url.replace("localhost", "127.0.0.1");
}

// A new DATA_DIR: the server copies its database from this install's template (src/db/embedded-template.ts,
// made by test/global-setup.ts), as any server of the install does.
const dataDir = temporaryFolders("hubgraph-process-");

describe("a bad environment variable", () => {
  it.each([
    ["PORT", "70000", /^Invalid configuration: PORT must be a whole number from 0 to 65535.*got "70000"$/],
    ["REGISTRATION", "opne", /^Invalid configuration: REGISTRATION must be one of open, closed, got "opne"$/],
    ["DATABASE_URL", "mysql://root:hunter2@db/hub", /^Invalid configuration: DATABASE_URL must be a PostgreSQL URL.*\(value not shown\)$/],
  ])("%s=%s exits 1 with one line naming it, before creating anything", async (name, value, message) => {
    const dir = dataDir();
    const server = start({ [name]: value, DATA_DIR: path.join(dir, "data") });
    expect(await server.exit).toBe(1);
    expect(server.lines).toHaveLength(1);
    expect(JSON.parse(server.lines[0]!)).toMatchObject({ level: "fatal", msg: expect.stringMatching(message) });
    expect(server.lines[0]).not.toContain("hunter2");
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });
});

it("exits 1 with one line when the port is in use", async () => {
  const occupier = net.createServer();
  await new Promise<void>((resolve) => occupier.listen(0, "127.0.0.1", resolve));
  const { port } = occupier.address() as net.AddressInfo;
  try {
    const dir = dataDir();
    const server = start({ PORT: String(port), DATA_DIR: path.join(dir, "data") });
    expect(await server.exit).toBe(1);
    expect(server.lines).toHaveLength(1);
    expect(JSON.parse(server.lines[0]!)).toMatchObject({ level: "fatal", msg: `Port ${port} on 127.0.0.1 is already in use (PORT): another server is listening there.` });
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  } finally {
    occupier.close();
  }
});

it("exits 1 with one line when PostgreSQL cannot be reached", async () => {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  const server = start({ DATABASE_URL: "postgres://someone:secret-password@127.0.0.1:1/hubgraph" });
  expect(await server.exit).toBe(1);
  const fatal = server.lines.map((line) => JSON.parse(line) as { level: string; msg: string }).filter((line) => line.level === "fatal");
  expect(fatal).toHaveLength(1);
  expect(fatal[0]!.msg).toMatch(/^Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/hubgraph \(DATABASE_URL\): .*ECONNREFUSED/);
  expect(server.lines.join("\n")).not.toContain("secret-password");
  expect(server.lines.join("\n")).not.toMatch(/\n\s+at /);
});

it("is live (/health 200) as soon as it serves HTTP, and ready (/ready 200) only once the database is migrated", { timeout: 120_000 }, async () => {
  const server = start({ DATA_DIR: dataDir() });
  // The listening line comes before the database is even opened (a fresh DATA_DIR is initialised, then migrated).
  const listening = JSON.parse(await server.waitFor(/listening on/)) as { url: string };
  const url = listening.url.replace("localhost", "127.0.0.1");
  const health = await fetch(`${url}/health`);
  const readiness = await fetch(`${url}/ready`);
  expect(server.lines.some((line) => /Hubgraph ready/.test(line)), "the start was too quick to see it starting").toBe(false);
  expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
  expect([readiness.status, readiness.headers.get("retry-after"), await readiness.json()]).toEqual([503, "1", { status: "starting" }]);
  // Any other request meanwhile is 503, logged with the request id it carries.
  const early = await fetch(`${url}/api/wiki/list`, { headers: { "X-Request-Id": "early-request-1" } });
  expect([early.status, early.headers.get("x-request-id")]).toEqual([503, "early-request-1"]);
  expect(JSON.parse(await server.waitFor(/early-request-1/))).toMatchObject({ level: "warn", requestId: "early-request-1", status: 503, path: "/api/wiki/list" });
  await ready(server);
  expect((await fetch(`${url}/ready`)).status).toBe(200);
  server.child.kill("SIGTERM");
  expect(await server.exit).toBe(0);
});

describe("a server on a fresh DATA_DIR", () => {
  let dir: string;
  let first: Started;
  let url: string;
  beforeAll(async () => {
    dir = dataDir();
    first = start({ DATA_DIR: dir });
    url = await ready(first);
  });

  it("answers /health", async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("locks it: a second server on the same DATA_DIR exits 1 naming the folder", async () => {
    const second = start({ DATA_DIR: dir });
    expect(await second.exit).toBe(1);
    const fatal = second.lines.map((line) => JSON.parse(line) as { level: string; msg: string }).find((line) => line.level === "fatal");
    expect(fatal?.msg).toContain(`DATA_DIR ${dir} is in use by another Hubgraph server`);
    // The first one is unharmed.
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it("on SIGTERM lets a running request finish, refuses new connections, closes the database and exits 0", async () => {
    // A request in flight: the body arrives in two parts, with the signal in between.
    const host = new URL(url);
    const socket = net.connect(Number(host.port), host.hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    const body = JSON.stringify({ query: "{ wikiPages { total } }" });
    let response = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (response += chunk));
    const answered = new Promise((resolve) => socket.once("end", resolve));
    socket.write(`POST /graphql HTTP/1.1\r\nHost: ${host.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));

    first.child.kill("SIGTERM");
    await first.waitFor(/SIGTERM: stopping/);
    await expect(fetch(`${url}/health`)).rejects.toThrow();

    socket.write(body.slice(10));
    await answered;
    expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(response).toContain('{"data":{"wikiPages":{"total":0}}}');
    // The keep-alive connection is closed after its answer instead of idling until its timeout.
    expect(response).toMatch(/\r\nConnection: close\r\n/i);
    expect(await first.exit).toBe(0);
    // Closed cleanly: the DATA_DIR lock is gone, so the next server can start at once.
    expect(fs.existsSync(path.join(dir, "hubgraph.lock"))).toBe(false);
    expect(first.lines.filter((line) => /"level":"(error|fatal)"/.test(line))).toEqual([]);
    // ... and said so when it had finished.
    expect(first.lines.some((line) => /"msg":"stopped: every request answered, the database closed"/.test(line))).toBe(true);
  });
});

/**
 * The tests that start several processes one after another (servers, the CLI): each loads the built server
 * and opens PGlite, a few seconds alone and several times that while the suites run beside
 * each other on two cores, where three of them went past the default 30 s.
 */
const SEVERAL_PROCESSES = 120_000;

describe("the first run", () => {
  const signIn = (url: string, username: string, password: string) =>
    fetch(`${url}/api/developer/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username, password }) });

  it("creates admin with a random password, logged once and kept owner-only in DATA_DIR until it is changed", async () => {
    const dir = dataDir();
    const passwordFile = path.join(dir, "admin-password");
    const first = start({ DATA_DIR: dir });
    const url = await ready(first);
    const created = first.lines.map((line) => JSON.parse(line) as { msg: string }).filter((line) => /created administrator/.test(line.msg));
    expect(created).toHaveLength(1);
    const password = /with password (\S+)/.exec(created[0]!.msg)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(created[0]!.msg).toContain(passwordFile);
    expect(created[0]!.msg).toContain("user reset-password admin");
    expect(fs.readFileSync(passwordFile, "utf8")).toBe(password);
    expect(fs.statSync(passwordFile).mode & 0o777).toBe(0o600);
    expect((await signIn(url, "admin", password)).status).toBe(200);
    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(0);

    // A second start finds the administrator: nothing created, the password not shown again, the file kept.
    const second = start({ DATA_DIR: dir });
    const again = await ready(second);
    expect(second.lines.join("\n")).not.toContain(password);
    expect(second.lines.join("\n")).not.toContain("created administrator");
    expect(fs.existsSync(passwordFile)).toBe(true);
    expect((await signIn(again, "admin", password)).status).toBe(200);
    second.child.kill("SIGTERM");
    expect(await second.exit).toBe(0);

    // Changed with the CLI: the file goes.
    const changed = await runCliProcess(["user", "reset-password", "admin", "--password-stdin"], { DATA_DIR: dir }, "a-new-and-much-longer-passphrase-4-admin\n");
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain(`deleted ${passwordFile}`);
    expect(fs.existsSync(passwordFile)).toBe(false);
  }, SEVERAL_PROCESSES);

  it("creates nothing when ADMIN_* is set (as before) or an administrator exists", async () => {
    const dir = dataDir();
    const server = start({ DATA_DIR: dir, ADMIN_USERNAME: "root", ADMIN_PASSWORD: "correct-horse-battery-staple-9" });
    const url = await ready(server);
    expect(server.lines.join("\n")).toContain('created administrator \\"root\\"');
    expect(server.lines.join("\n")).not.toContain("with password");
    expect(fs.existsSync(path.join(dir, "admin-password"))).toBe(false);
    expect((await signIn(url, "admin", "anything-at-all")).status).toBe(400);
    server.child.kill("SIGTERM");
    expect(await server.exit).toBe(0);
    const next = start({ DATA_DIR: dir });
    await ready(next);
    expect(next.lines.join("\n")).not.toContain("created administrator");
    next.child.kill("SIGTERM");
    expect(await next.exit).toBe(0);
  }, SEVERAL_PROCESSES);
});

describe("the CLI beside a running server on the embedded database", () => {
  it("runs its commands inside the server, found through an owner-only access file that goes when the server stops", async () => {
    const dir = dataDir();
    const server = start({ DATA_DIR: dir });
    const url = await ready(server);
    const accessFile = path.join(dir, "cli-access.json");
    expect(fs.statSync(accessFile).mode & 0o777).toBe(0o600);

    const listed = await runCliProcess(["user", "list"], { DATA_DIR: dir });
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect(listed.stdout).toMatch(/^1\s+admin\s+yes/m);
    const created = await runCliProcess(["user", "create", "ada", "--email", "ada@example.test", "--password-stdin"], { DATA_DIR: dir }, "analytical-engine-notes-1843\n");
    expect(created).toMatchObject({ code: 0, stderr: "" });
    // Written by the server itself: it signs in at once.
    const token = await fetch(`${url}/api/developer/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "ada", password: "analytical-engine-notes-1843" }) });
    expect(token.status).toBe(200);
    // Errors name the option the user typed.
    const weak = await runCliProcess(["user", "create", "bob", "--email", "bob@example.test", "--password-stdin"], { DATA_DIR: dir }, "short\n");
    expect(weak.code).toBe(1); // refused by the users service: the command failed (2 is for a command line that cannot be read)
    expect(weak.stderr).toMatch(/^error: --password-stdin /);

    // Without the token nothing runs: the route does not exist for anyone else (a guessed bearer is refused as any bad token).
    for (const headers of [{}, { authorization: "Bearer guessed" }] as Record<string, string>[]) {
      const forged = await fetch(`${url}/_cli`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ argv: ["user", "list"] }) });
      expect([401, 404]).toContain(forged.status);
      expect(await forged.text()).not.toContain("admin@localhost");
    }

    server.child.kill("SIGTERM");
    expect(await server.exit).toBe(0);
    expect(fs.existsSync(accessFile)).toBe(false);
    // With no server, the CLI opens the database itself, as before.
    const alone = await runCliProcess(["user", "list"], { DATA_DIR: dir });
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(/^2\s+ada/m);
  }, SEVERAL_PROCESSES);

  it("--version prints the package's version; output piped to a reader that goes away ends quietly", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
    const printed = await runCliProcess(["--version"], { DATA_DIR: dataDir() });
    expect(printed).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });

    // `hubgraph openapi | head -1`: the reader closes after the first chunk.
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, BUILT_CLI, "openapi"], { cwd: root, env: { ...process.env, DATABASE_URL: "", DATA_DIR: dataDir() }, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout!.once("data", () => child.stdout!.destroy());
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

/** The CLI as a user runs it, in a process of its own (built, as the `hubgraph` bin runs it). */
function runCliProcess(args: string[], env: Record<string, string>, input = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _url, ...inherited } = process.env;
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, BUILT_CLI, ...args], { cwd: root, env: { ...inherited, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin!.end(input);
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}
