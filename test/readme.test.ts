// The README, literally, on a fresh clone (issue 16): its set-up command (`npm install && npm start`), then
// the walk-through through REST, the same through GraphQL, and the command-line block beside the running
// server; then a second `npm start`, which must not rebuild. The only change made to what the README says
// is the port (a free one, not 3000, which something else on the machine may hold). Prints the timings.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createScratchDatabase } from "./scratch-database.js";

const root = path.resolve(import.meta.dirname, "..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");

/** Every ```sh block of the section under `heading` (up to the next heading of its level), in order. */
function sectionBlocks(heading: string): string[] {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const rest = readme.slice(at + heading.length + 1);
  const next = rest.search(new RegExp(`\n${level} `));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((found) => found[1]!);
}

/** The first ```sh block after the heading `heading`. */
function shellBlock(heading: string): string {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error(`no sh block after ${heading}`);
  return block[1]!;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const children = new Set<ChildProcess>();
const cleanUps: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  for (const cleanUp of cleanUps.reverse()) await cleanUp();
});

describe("the README on a fresh clone", () => {
  it("set-up, walk-through, GraphQL and CLI blocks work as written; a second start does not rebuild", { timeout: 900_000 }, async () => {
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-readme-"));
    cleanUps.push(() => fs.rmSync(clone, { recursive: true, force: true }));
    execFileSync("git", ["clone", "-q", "--no-hardlinks", root, clone]);

    const port = await freePort();
    const { DATABASE_URL: inheritedUrl, LOG_LEVEL: _level, METRICS_TOKEN: _token, ADMIN_USERNAME: _u, ADMIN_PASSWORD: _p, DATA_DIR: _dir, PORT: _port, VITEST_JSON: _json, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, PORT: String(port), NODE_ENV: "" };
    if (loadConfig().databaseUrl) {
      const scratch = await createScratchDatabase(inheritedUrl!);
      env.DATABASE_URL = scratch.url;
      cleanUps.push(scratch.drop);
    }
    const bash = (script: string, timeout = 300_000) =>
      execFileSync("bash", ["-euo", "pipefail", "-c", script], { cwd: clone, env, encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });

    // The set-up line: `npm install && npm start`, the two timed apart.
    const setUp = shellBlock("## Set up").split("\n")[0]!.replace(/\s+#.*$/, "");
    expect(setUp).toBe("npm install && npm start");
    let started = Date.now();
    bash("npm install", 600_000);
    const installSeconds = (Date.now() - started) / 1000;

    const start = async () => {
      const begun = Date.now();
      const child = spawn("bash", ["-c", "exec npm start"], { cwd: clone, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      children.add(child);
      let output = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      for (;;) {
        if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output}`);
        const ready = await fetch(`http://127.0.0.1:${port}/ready`).then((response) => response.status === 200, () => false);
        if (ready) break;
        if (Date.now() - begun > 300_000) throw new Error(`not ready after 300 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return { child, seconds: (Date.now() - begun) / 1000, output: () => output };
    };
    const stop = async (child: ChildProcess) => {
      process.kill(-child.pid!, "SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    };

    const first = await start();
    // The first start made the administrator and said so, with the password and where it is kept.
    expect(first.output()).toMatch(/created administrator \\?"admin\\?" with password \S+ \(kept in .*admin-password/);

    // The walk-through and the GraphQL example, one shell session, the port changed and nothing else.
    const walk = shellBlock("## A walk through the REST API").replace("B=http://localhost:3000", `B=http://localhost:${port}`);
    const graphql = shellBlock("## The same through GraphQL");
    const walked = bash(`${walk}\n${graphql}`);
    expect(walked).toContain('"title":"Getting Started","pagename":"GettingStarted"');
    expect(walked).toMatch(/"pages":\[\{"id":1,"title":"Getting started".*"total":1/);
    expect(walked).toContain('"createdBy":{"username":"admin"}');
    expect(walked).toMatch(/"posts":\[.*"title":"Hello"/);

    // The command-line block, beside the running server.
    started = Date.now();
    const cli = bash(shellBlock("## Administration from the command line"));
    const cliBlockSeconds = (Date.now() - started) / 1000;
    expect(cli).toContain('created user "editor"');
    expect(cli).toContain("client_secret");
    expect(cli).toMatch(/added 4 users, .*\nskipped wiki page GettingStarted: a page with that name exists and is not the demo's\n/);
    expect(cli).toMatch(/demo accounts: ada, grace, margaret, linus, with the password \S+\n/);

    // One command's time, as the bin runs it (warm).
    const times: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      started = Date.now();
      bash("node src/cli/hubgraph.mjs user list >/dev/null");
      times.push((Date.now() - started) / 1000);
    }
    await stop(first.child);

    const second = await start();
    expect(second.output()).toContain("dist/ is up to date");
    await stop(second.child);

    console.log(
      `README timings: npm install ${installSeconds.toFixed(1)} s; healthy after npm start: first ${first.seconds.toFixed(1)} s (with the build), ` +
        `second ${second.seconds.toFixed(1)} s; CLI command ${times.map((time) => time.toFixed(2)).join(" / ")} s; the CLI block (7 commands through npm run) ${cliBlockSeconds.toFixed(1)} s`,
    );
    expect(second.seconds).toBeLessThan(10);
  });
});

// The walk-throughs by area (issue 32): groups with joining and a hidden group, the forum, activity, plugins,
// webhooks to a local receiver and a subscription over SSE, after the REST and GraphQL walk-throughs, in one
// shell session, as written (only the ports changed), against a fresh server started from source on a fresh
// DATA_DIR (and a fresh database on PostgreSQL), with WEBHOOK_ALLOWED_ADDRESSES=127.0.0.1 as the webhooks
// block says. The set-up test above covers `npm install && npm start` on a fresh clone.
describe("the README's walk-throughs by area", () => {
  it("run as written against a fresh server and answer what they say", { timeout: 300_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-walk-"));
    cleanUps.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const [port, receiverPort] = [await freePort(), await freePort()];
    const { DATABASE_URL: inheritedUrl, LOG_LEVEL: _level, METRICS_TOKEN: _token, ADMIN_USERNAME: _u, ADMIN_PASSWORD: _p, DATA_DIR: _dir, PORT: _port, ...inherited } = process.env;
    const webhooks = readme.slice(readme.indexOf("\n### Webhooks to a local receiver\n"));
    expect(webhooks).toContain("WEBHOOK_ALLOWED_ADDRESSES=127.0.0.1 npm start");
    const env: NodeJS.ProcessEnv = { ...inherited, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: path.join(dir, "data"), WEBHOOK_ALLOWED_ADDRESSES: "127.0.0.1", NODE_ENV: "" };
    if (loadConfig().databaseUrl) {
      const scratch = await createScratchDatabase(inheritedUrl!);
      env.DATABASE_URL = scratch.url;
      cleanUps.push(scratch.drop);
    }
    const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "src/main.ts")], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    children.add(server);
    let output = "";
    server.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    server.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    for (const begun = Date.now(); ; ) {
      if (server.exitCode !== null) throw new Error(`the server exited ${server.exitCode}:\n${output}`);
      if (await fetch(`http://127.0.0.1:${port}/ready`).then((response) => response.status === 200, () => false)) break;
      if (Date.now() - begun > 120_000) throw new Error(`not ready after 120 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const blocks = [shellBlock("## A walk through the REST API"), shellBlock("## The same through GraphQL"), ...sectionBlocks("## Walk-throughs by area")];
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const script = blocks.join("\n").replace("B=http://localhost:3000", `B=http://localhost:${port}`).replaceAll("8765", String(receiverPort));
    let walked: string;
    try {
      walked = execFileSync("bash", ["-euo", "pipefail", "-c", script], { cwd: dir, env, encoding: "utf8", timeout: 180_000, stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      throw new Error(`the walk-through failed:\n${failed.stdout}\n${failed.stderr}\nserver:\n${output.slice(-4000)}`);
    }
    // Groups: defaults, joining, a request approved, a hidden group found by its member only.
    expect(walked).toContain('"join_policy":"open","discoverability":"visible"');
    expect(walked).toContain('{"data":{"joinGroup":{"cn":"makers","myMembership":"MEMBER"}}}');
    expect(walked).toContain('{"data":{"joinGroup":{"myMembership":"APPLICANT"}}}');
    expect(walked).toContain('{"data":{"approveGroupRequest":{"myMembership":"MANAGER"}}}');
    expect(walked).toMatch(/\}404\n/); // curl -w '%{http_code}\n' right after the members list's JSON
    expect(walked).toContain('{"data":{"group":{"title":"Secret club","myMembership":"INVITEE"}}}');
    expect(walked).toContain('{"data":{"acceptGroupInvitation":{"myMembership":"MEMBER"}}}');
    expect(walked).toMatch(/X-Total-Count: 3/i);
    expect(walked).toContain('"title":"Saturday workshop"');
    // Forum: a thread without category_id, a reply, the group's forum.
    expect(walked).toContain('"comment":"Grace, from the makers."');
    expect(walked).toMatch(/\}group\n/); // json .scope right after the categories' JSON
    // Activity, plugins, webhooks, the subscription.
    expect(walked).toContain('"action":"shared"');
    expect(walked).toContain('{"data":{"activityFeed":{"total":');
    expect(walked).toMatch(/"action":"forum.postCreated","alias":"","description":"Forum reply in thread \d+"/);
    expect(walked).toMatch(/\[\{"wiki":\d+,"blog":\d+,"citations":\d+,"groups":\d+\}\]/);
    expect(walked).toContain('"parameter":"event"');
    expect(walked).toMatch(/msg_\S+ \{"type":"wiki.pageCreated".*"payload":\{"id":\d+,"title":"Hooked"/);
    expect(walked).toMatch(/^data: \{"data":\{"events":\{"type":"wiki.pageCreated","area":"wiki","recordId":\d+\}\}\}$/m);
    process.kill(-server.pid!, "SIGTERM");
    await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once("exit", resolve)));
  });
});
