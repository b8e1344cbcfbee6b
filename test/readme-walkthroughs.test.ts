// The README's walk-throughs by area, in a file of their own so they run beside the fresh clone's set-up
// (test/readme.test.ts), the suite's longest file.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createScratchDatabase } from "./scratch-database.js";
import { BUILT_SERVER } from "./built.js";
import { children, cleanUps, endChildrenAndCleanUp, freePort, readme, root, sectionBlocks, shellBlock } from "./readme.js";

// The walk-throughs by area (issue 32): groups with joining and a hidden group, the forum, activity, plugins,
// webhooks to a local receiver and a subscription over SSE, after the REST and GraphQL walk-throughs, in one
// shell session, as written (only the ports changed), against a fresh server (built, as `npm start` runs it) on a fresh
// DATA_DIR (and a fresh database on PostgreSQL), with WEBHOOK_ALLOWED_ADDRESSES=127.0.0.1 as the webhooks
// block says. test/readme.test.ts covers `npm install && npm start` on a fresh clone.
afterAll(endChildrenAndCleanUp);

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
    const server = spawn(process.execPath, [BUILT_SERVER], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
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
