import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../server.js";
import { SKIPPED_LINE, hasBrowser, launchBrowser, offlineProblems, waitForText, type OpenedPage, type TestBrowser } from "./browser.js";

// GraphiQL in a real headless Chromium: the page renders from this server's files alone, runs its
// example query, and with a cookie session sends the CSRF token so mutations work.
if (!hasBrowser) console.log(SKIPPED_LINE);

// A browser on a busy machine: GraphiQL takes seconds to start.
describe.skipIf(!hasBrowser)("GraphiQL in a browser", { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: TestBrowser;
  let author: TestUser;

  beforeAll(async () => {
    server = await startServer();
    author = await server.user();
    const created = await server.rest("POST", "/wiki", {
      token: author.token,
      body: { title: "Browser Test Page", pagetext: "Seen through GraphiQL.", state: 1 },
    });
    expect(created.status).toBe(201);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Every request stayed on this machine and every file loaded; only the session probe may answer 401. */
  const expectSelfContained = (opened: OpenedPage) => expect(offlineProblems(opened, (url) => url.endsWith("/api/session"))).toEqual([]);

  async function runQuery(opened: OpenedPage, expected: string): Promise<string> {
    const { page } = opened;
    await page.waitForSelector(".graphiql-execute-button", { timeout: 45_000 });
    await waitForText(page, ".graphiql-query-editor", (text) => text.length > 0);
    await page.click(".graphiql-execute-button");
    return waitForText(page, ".graphiql-response", (text) => text.includes(expected)).catch((error: Error) => {
      throw new Error(`${error.message}\nbrowser errors: ${opened.errors.join("\n")}`);
    });
  }

  it("opens with the example query and the schema docs, and runs the query", async () => {
    const opened = await browser.open(`${server.url}/graphql`);
    const { page } = opened;
    expect(await page.title()).toBe("Hubgraph GraphiQL");
    expect(await waitForText(page, ".graphiql-query-editor", (text) => text.includes("RecentWikiPages"))).toContain("wikiPages");
    // The Documentation Explorer is open on a first visit and lists the root types from introspection.
    expect(await waitForText(page, ".graphiql-doc-explorer", (text) => text.includes("Query"))).toContain("Query");

    const result = await runQuery(opened, "Browser Test Page");
    expect(result).toContain('"total": 1');
    expect(result).toContain(author.username);

    // The Monaco editors ran their web workers from this server too.
    expect(opened.requests.filter((request) => request.url.includes("worker")).length).toBeGreaterThan(0);
    expectSelfContained(opened);
  });

  it("sends the CSRF token of a cookie session, so a signed-in user can run mutations", async () => {
    const signedIn = await browser.open(`${server.url}/graphql`);
    const status = await signedIn.page.evaluate(
      async (username, password) =>
        (await fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) }))
          .status,
      author.username,
      author.password,
    );
    expect(status).toBe(201);

    const mutation = `mutation { createWikiPage(input: { title: "Written In GraphiQL", pagetext: "Through a cookie session.", state: 1 }) { title createdBy { username } } }`;
    const opened = signedIn;
    await opened.page.goto(`${server.url}/graphql?query=${encodeURIComponent(mutation)}`, { waitUntil: "load", timeout: 60_000 });
    const result = await runQuery(opened, "Written In GraphiQL");
    expect(result).toContain(author.username);

    const list = await server.rest("GET", "/wiki/list", { query: { search: "Written In GraphiQL" } });
    expect(list.body.total).toBe(1);
    expectSelfContained(opened);
  });
});
