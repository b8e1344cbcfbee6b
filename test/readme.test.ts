// The README, literally, on a fresh clone (issue 16): its set-up command (`npm install && npm start`), then
// the walk-through through REST, the same through GraphQL, and the command-line block beside the running
// server; then a second `npm start`, which must not rebuild. The only change made to what the README says
// is the port (a free one, not 3000, which something else on the machine may hold). Prints the timings.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createScratchDatabase } from "./scratch-database.js";
import { children, cleanUps, endChildrenAndCleanUp, freePort, root, shellBlock } from "./readme.js";

afterAll(endChildrenAndCleanUp);

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

    // Not rebuilding is what the build says, not a time: a bound on seconds failed CI on a loaded machine (11-13 s
    // beside the other suites, 4.5 s quiet); the timings are printed below, and speed goals live in `npm run bench`.
    const second = await start();
    expect(second.output()).toContain("dist/ is up to date");
    await stop(second.child);

    console.log(
      `README timings: npm install ${installSeconds.toFixed(1)} s; healthy after npm start: first ${first.seconds.toFixed(1)} s (with the build), ` +
        `second ${second.seconds.toFixed(1)} s; CLI command ${times.map((time) => time.toFixed(2)).join(" / ")} s; the CLI block (7 commands through npm run) ${cliBlockSeconds.toFixed(1)} s`,
    );
  });
});
