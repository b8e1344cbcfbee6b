import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestMeDocument } from "./generated/auth.js";
import { runCli } from "../src/cli/program.js";
import { loadConfig } from "../src/config.js";
import { createScratchDatabase } from "./scratch-database.js";
import { startServer, type TestServer } from "./server.js";
import { CLI_NODE_ARGS } from "./built.js";

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const BIN = path.resolve("src/cli/hubgraph.mjs");

/** Runs the real `hubgraph` bin in its own process, as an operator would. */
function spawnCli(args: string[], env: NodeJS.ProcessEnv, stdin = ""): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, BIN, ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

// Each process opens (and migrates) the database afresh: seconds per command on a busy machine.
describe("hubgraph CLI, in its own process against its own database", { timeout: 180_000 }, () => {
  const env: NodeJS.ProcessEnv = {};
  let cleanUp = async () => {};

  beforeAll(async () => {
    // The CLI opens the database the way the server does: DATABASE_URL, else the embedded one in DATA_DIR.
    const base = loadConfig();
    if (base.databaseUrl) {
      const scratch = await createScratchDatabase(base.databaseUrl);
      env.DATABASE_URL = scratch.url;
      cleanUp = scratch.drop;
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-cli-"));
      env.DATABASE_URL = "";
      env.DATA_DIR = dir;
      cleanUp = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(() => cleanUp());

  it("explains itself: --help on the program and on a command, exit code 0", async () => {
    const help = await spawnCli(["--help"], env);
    expect(help.code).toBe(0);
    for (const command of ["user", "token", "client", "seed", "migrate", "openapi"]) expect(help.stdout).toContain(command);
    const create = await spawnCli(["user", "create", "--help"], env);
    expect(create.code).toBe(0);
    expect(create.stdout).toContain("--email <address>");
    expect(create.stdout).toContain("--password-stdin");
  });

  it("answers a wrong command line with exit code 2 and names what was wrong", async () => {
    const unknown = await spawnCli(["user", "frobnicate"], env);
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const missing = await spawnCli(["user", "create", "someone"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("'--email <address>' not specified");
    const nothing = await spawnCli([], env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("Usage: hubgraph");
  });

  it("migrates, creates an administrator from a password on stdin, and lists it", async () => {
    const first = await spawnCli(["migrate"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/applying migration \w+|the database is up to date/);
    const again = await spawnCli(["migrate"], env);
    expect(again).toMatchObject({ code: 0, stderr: "" });
    expect(again.stdout).toMatch(/^the database is up to date \(\d+ migrations?\)\n$/);

    const created = await spawnCli(["user", "create", "root", "--email", "root@example.org", "--admin", "--password-stdin"], env, "a longer violet harbor phrase 58\n");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created administrator "root" \(id \d+\)\n$/);

    const list = await spawnCli(["user", "list", "--json"], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ username: "root", email: "root@example.org", isAdmin: true })]);
  });

  it("writes the OpenAPI document the server serves, to standard output or to --out", async () => {
    const server = await startServer();
    try {
      const served = await (await fetch(`${server.url}/api/openapi.json`)).json();
      const printed = await spawnCli(["openapi"], env);
      expect(printed.code, printed.stderr).toBe(0);
      expect(JSON.parse(printed.stdout)).toEqual(served);

      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-openapi-")), "openapi.json");
      const written = await spawnCli(["openapi", "--out", out], env);
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout).toMatch(/^wrote the OpenAPI document to .*openapi\.json \(\d+ paths\)\n$/);
      expect(JSON.parse(fs.readFileSync(out, "utf8"))).toEqual(served);
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
    } finally {
      await server.close();
    }
  });
});

describe("hubgraph CLI against a running server's database", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  /** Runs one command in this process on the test server's database. */
  async function cli(args: string[], stdin = "", env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
    let stdout = "";
    let stderr = "";
    const code = await runCli(
      args,
      { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), stdin: Readable.from([stdin]), env },
      { database: server.app.db },
    );
    return { code, stdout, stderr };
  }

  const signIn = (username: string, password: string) =>
    server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username, password } });
  const me = async (token: string) => (await server.graphql(TestMeDocument, {}, token)).data?.me ?? null;
  const tokenWorks = async (token: string) =>
    (await fetch(`${server.url}/api/wiki/list`, { headers: { authorization: `Bearer ${token}` } })).status === 200;

  it("creates accounts through the users service, with a generated password when none is given", async () => {
    const created = await cli(["user", "create", "carol", "--email", "carol@example.org", "--name", "Carol C"]);
    expect(created.code, created.stderr).toBe(0);
    const password = /^password: (\S+)$/m.exec(created.stdout)![1]!;
    const token = await signIn("carol", password);
    expect(token.status).toBe(200);
    expect(await me(token.body.access_token)).toMatchObject({ username: "carol", name: "Carol C", admin: false });

    // Values the users service refuses: the command failed (1), naming each option; 2 is for a command line that cannot be read.
    const bad = await cli(["user", "create", "x y", "--email", "not-an-address", "--password", "short"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("<username> must be 2 to 64 letters");
    expect(bad.stderr).toContain("--email must be an e-mail address");
    expect(bad.stderr).toContain("--password must be at least 8 characters");

    const taken = await cli(["user", "create", "carol", "--email", "other@example.org", "--password", "quiet lantern orbit 58"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe('error: The username "carol" is taken.\n');
  });

  it("promotes and demotes, and fails clearly on an unknown account", async () => {
    const user = await server.user();
    expect((await cli(["user", "promote", user.username])).code).toBe(0);
    expect(await me(user.token)).toMatchObject({ admin: true });
    const twice = await cli(["user", "promote", user.username]);
    expect(twice.stdout).toContain("nothing changed");
    expect((await cli(["user", "demote", user.username])).code).toBe(0);
    expect(await me(user.token)).toMatchObject({ admin: false });
    const unknown = await cli(["user", "promote", "nobody-here"]);
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: 'error: no user named "nobody-here"\n' });
  });

  it("resets a password: the old one and every token and session of the account stop working", async () => {
    const user = await server.user();
    const login = await server.rest("POST", "/session", { body: { username: user.username, password: user.password } });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const short = await cli(["user", "reset-password", user.username, "--password-stdin"], "short\n");
    expect(short.code).toBe(1);
    // The option actually used is named: the password came from standard input.
    expect(short.stderr).toContain("error: --password-stdin must be at least 8 characters");
    expect(await tokenWorks(user.token)).toBe(true);

    const reset = await cli(["user", "reset-password", user.username, "--password-stdin"], "brand new cobalt harbor 58\n");
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain("1 token and 1 session ended");
    expect((await signIn(user.username, user.password)).status).toBe(400);
    expect((await signIn(user.username, "brand new cobalt harbor 58")).status).toBe(200);
    expect(await tokenWorks(user.token)).toBe(false);
    expect((await server.rest("GET", "/session", { headers: { cookie } })).status).toBe(401);
  });

  it("issues a bearer token that works at once, and revokes it by its string", async () => {
    const user = await server.user();
    const issued = await cli(["token", "issue", user.username, "--ttl", "600"]);
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trim();
    expect(issued.stdout).toBe(`${token}\n`);
    expect(await me(token)).toMatchObject({ username: user.username });

    const revoked = await cli(["token", "revoke", token]);
    // Its stderr in the message: a token beginning with "-" was refused as an option (see below).
    expect(revoked.stdout, revoked.stderr).toBe("token revoked\n");
    expect(await tokenWorks(token)).toBe(false);
    const again = await cli(["token", "revoke", token]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("no such token");
    // A token is base64url: one in 64 begins with "-", which the option parser took for an unknown option.
    const dashed = await cli(["token", "revoke", "-o6b7eWxVpaZuqr8SXcZKARDfUW745f3rgyxgRHig4s"]);
    expect(dashed.code, dashed.stderr).toBe(1);
    expect(dashed.stderr).toContain("no such token");
    expect((await cli(["token", "issue", user.username, "--ttl", "0"])).code).toBe(2);
    const tooLong = await cli(["token", "issue", user.username, "--ttl", "99999999999"]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain("--ttl must be a whole number of seconds from 1 to");
  });

  it("revokes tokens from the token endpoint, by access token, by refresh token, or all of a user's", async () => {
    const user = await server.user();
    const byAccess = (await signIn(user.username, user.password)).body;
    expect((await cli(["token", "revoke", byAccess.access_token])).code).toBe(0);
    expect(await tokenWorks(byAccess.access_token)).toBe(false);
    const refreshed = await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token", refresh_token: byAccess.refresh_token } });
    expect(refreshed.status).toBe(400);

    const byRefresh = (await signIn(user.username, user.password)).body;
    expect((await cli(["token", "revoke", byRefresh.refresh_token])).code).toBe(0);
    expect(await tokenWorks(byRefresh.access_token)).toBe(false);

    const one = (await signIn(user.username, user.password)).body.access_token;
    const two = (await signIn(user.username, user.password)).body.access_token;
    const login = await server.rest("POST", "/session", { body: { username: user.username, password: user.password } });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const all = await cli(["token", "revoke", "--user", user.username, "--sessions"]);
    expect(all.stdout).toBe(`revoked 3 tokens of "${user.username}" and ended 1 session\n`);
    expect(await tokenWorks(one)).toBe(false);
    expect(await tokenWorks(two)).toBe(false);
    expect((await server.rest("GET", "/session", { headers: { cookie } })).status).toBe(401);

    const neither = await cli(["token", "revoke"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("give either a <token> or --user <username>");
  });

  it("registers an OAuth client whose client_credentials tokens act as its owner", async () => {
    const owner = await server.user();
    const registered = await cli(["client", "register", "Nightly Report", "--owner", owner.username]);
    expect(registered.code, registered.stderr).toBe(0);
    const clientId = /^client_id: (\S+)$/m.exec(registered.stdout)![1]!;
    const clientSecret = /^client_secret: (\S+)$/m.exec(registered.stdout)![1]!;
    const token = await server.rest("POST", "/developer/oauth/token", {
      form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
    });
    expect(token.status).toBe(200);
    expect(await me(token.body.access_token)).toMatchObject({ username: owner.username });
    const blank = await cli(["client", "register", " ", "--owner", owner.username]);
    expect(blank.code).toBe(1); // refused by the service, naming the argument: the command failed
    expect(blank.stderr).toContain("<name> must not be empty");
  });

  const counts = async () => {
    const db = server.app.db.prisma;
    return Promise.all([db.user.count(), db.group.count(), db.groupMember.count(), db.wikiPage.count(), db.wikiRevision.count(), db.blogEntry.count()]);
  };

  it("seeds all or nothing: a run that fails on its last record leaves nothing behind", async () => {
    const db = server.app.db.prisma;
    const before = await counts();
    // The last blog entry cannot be written: the run fails after everything else was added.
    await db.$executeRawUnsafe(`CREATE FUNCTION refuse_hackathon() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.alias = 'summer-hackathon' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await db.$executeRawUnsafe(`CREATE TRIGGER refuse_hackathon BEFORE INSERT ON blog_entries FOR EACH ROW EXECUTE FUNCTION refuse_hackathon()`);
    try {
      const failed = await cli(["seed", "--demo", "--password", "demo cobalt orbit lantern 58"]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain("seeding blog entries 6/6");
      expect(await counts()).toEqual(before);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_hackathon ON blog_entries`);
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_hackathon()`);
    }
  });

  it("seeds demo content through the services, and a second run adds nothing", async () => {
    expect((await cli(["seed"])).code).toBe(2);
    const seeded = await cli(["seed", "--demo", "--password", "demo cobalt orbit lantern 58"]);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/^added 4 users, 1 group, 3 group memberships, 6 wiki pages, 10 wiki revisions, 6 blog entries\n/);
    expect(seeded.stdout).toContain("demo accounts: ada, grace, margaret, linus, with the password given with --password\n");
    expect(seeded.stdout).toContain("sign in as one: curl");
    // The server's address as PORT says (it said 3000 whatever PORT was).
    const elsewhere = await cli(["seed", "--demo", "--password", "demo cobalt orbit lantern 58"], "", { ...process.env, PORT: "4567", HOST: "0.0.0.0" });
    expect(elsewhere.stdout).toContain("sign in as one: curl -s http://localhost:4567/api/developer/oauth/token");
    // Progress, on stderr.
    expect(seeded.stderr).toContain("seeding wiki pages 3/6…");

    // Anonymous readers see the published public content only; the rules of the services hold.
    const pages = await server.rest("GET", "/wiki/list", { query: { limit: 100 } });
    expect(pages.body.pages.map((page: { title: string }) => page.title).sort()).toEqual(["Community Guidelines", "FAQ", "Getting Started"]);
    const started = pages.body.pages.find((page: { pagename: string }) => page.pagename === "GettingStarted");
    expect(started.revisions).toBe(3);
    const entries = await server.rest("GET", "/blog/list", { query: { limit: 100 } });
    expect(entries.body.posts.map((post: { alias: string }) => post.alias).sort()).toEqual(["meetup-recap", "welcome-to-the-hub", "wiki-revisions"]);
    // A demo member signs in and sees the members-only records too.
    const grace = (await signIn("grace", "demo cobalt orbit lantern 58")).body.access_token;
    expect((await server.rest("GET", "/wiki/list", { token: grace })).body.total).toBe(4);

    const before = await counts();
    const again = await cli(["seed", "--demo"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^the demo content is there already; nothing added\ndemo accounts: ada, grace, margaret, linus, with the password they were given/);
    expect(await counts()).toEqual(before);
  });

  it("never touches what is not its own: a page, an entry or an account with a demo name is skipped and reported", async () => {
    // A fresh database: the README's walk-through made "Getting Started" first, and someone registered LINUS.
    const fresh = await startServer();
    try {
      const admin = await fresh.user({ admin: true });
      expect((await fresh.rest("POST", "/wiki", { token: admin.token, body: { title: "Getting Started", pagetext: "Welcome to the hub.", state: 1 } })).status).toBe(201);
      expect((await fresh.rest("POST", "/blog", { token: admin.token, body: { scope: "site", scope_id: 0, title: "Meetup", alias: "meetup-recap", content: "Ours.", state: 1 } })).status).toBe(201);
      await fresh.user({ username: "LINUS" });
      const run = async (args: string[]) => {
        let stdout = "";
        let stderr = "";
        const code = await runCli(args, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), stdin: Readable.from([""]), env: process.env }, { database: fresh.app.db });
        return { code, stdout, stderr };
      };
      const seeded = await run(["seed", "--demo"]);
      expect(seeded.code, seeded.stderr).toBe(0);
      expect(seeded.stdout).toContain("skipped account linus: the name belongs to an account that is not the demo's");
      expect(seeded.stdout).toContain("skipped wiki page GettingStarted: a page with that name exists and is not the demo's");
      expect(seeded.stdout).toContain("skipped blog entry meetup-recap: an entry with that alias exists and is not the demo's");
      expect(seeded.stdout).toMatch(/demo accounts: ada, grace, margaret, with the password \S+\n/);
      // The walk-through's page is as it was.
      const page = await fresh.rest("GET", "/wiki/list", { query: { search: "Welcome to the hub." } });
      expect(page.body.pages.find((found: { pagename: string }) => found.pagename === "GettingStarted")).toMatchObject({ revisions: 1 });
      // Idempotent, skips included.
      const again = await run(["seed", "--demo"]);
      expect(again.stdout).toMatch(/^the demo content is there already; nothing added\n/);
    } finally {
      await fresh.close();
    }
  });
});
