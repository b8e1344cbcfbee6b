import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HTTPResponse } from "puppeteer-core";
import { startServer, type TestServer, type TestUser } from "../server.js";
import { SKIPPED_LINE, hasBrowser, launchBrowser, policyViolations, offlineProblems, waitForText, type OpenedPage, type TestBrowser } from "./browser.js";

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

  /** Every request stayed on this machine and every file loaded; the session probe may answer 401. */
  const expectSelfContained = (opened: OpenedPage, alsoExpected: (response: HTTPResponse) => boolean = () => false) => {
    expect(offlineProblems(opened, (response) => response.url().endsWith("/api/session") || alsoExpected(response))).toEqual([]);
    // ... and under the server's Content-Security-Policy, which it works within.
    expect(policyViolations(opened)).toEqual([]);
  };

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

  it("runs a subscription: the result pane shows each event as the server sends it over SSE", async () => {
    const subscription = `subscription { events(types: ["wiki.pageCreated"]) { type recordId payload } }`;
    const opened = await browser.open(`${server.url}/graphql?query=${encodeURIComponent(subscription)}`);
    const { page } = opened;
    await page.waitForSelector(".graphiql-execute-button", { timeout: 45_000 });
    await waitForText(page, ".graphiql-query-editor", (text) => text.includes("subscription"));
    await page.click(".graphiql-execute-button");
    // The stream is open once the server counts it; then a page written elsewhere shows up in GraphiQL.
    await expect.poll(async () => (await fetch(`${server.url}/metrics`)).text(), { timeout: 30_000 }).toMatch(/hubgraph_subscriptions_open 1\b/);
    const created = await server.rest("POST", "/wiki", { token: author.token, body: { title: "Seen Live In GraphiQL", pagetext: "Pushed.", state: 1 } });
    expect(created.status).toBe(201);
    const shown = await waitForText(page, ".graphiql-response", (text) => text.includes("Seen Live In GraphiQL")).catch((error: Error) => {
      throw new Error(`${error.message}\nbrowser errors: ${opened.errors.join("\n")}`);
    });
    expect(shown).toContain('"type": "wiki.pageCreated"');
    expect(shown).toContain(`"recordId": ${created.body.id}`);
    expect(opened.requests.some((request) => request.url === `${server.url}/graphql`)).toBe(true);
    expectSelfContained(opened);
  });

  it("sends the CSRF token of a cookie session, read again when the user signs in after GraphiQL opened", async () => {
    const title = "Written In GraphiQL";
    const mutation = `mutation { createWikiPage(input: { title: "${title}", pagetext: "Through a cookie session.", state: 1 }) { title pagename createdBy { username } } }`;
    const opened = await browser.open(`${server.url}/graphql?query=${encodeURIComponent(mutation)}`);
    const { page } = opened;
    // GraphiQL is up (its docs come from introspection) before the user signs in, in this same browser.
    await waitForText(page, ".graphiql-doc-explorer", (text) => text.includes("Query"));
    const status = await page.evaluate(
      async (username, password) =>
        (await fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) }))
          .status,
      author.username,
      author.password,
    );
    expect(status).toBe(201);

    // The page read "no session" when it opened: its first request with the new cookie is refused (403),
    // so it reads the session's token and sends that request again.
    expect(await runQuery(opened, '"WrittenInGraphiQL"')).toContain(author.username);
    const refused = () => opened.responses.filter((response) => response.status() === 403).map((response) => response.url());
    expect(refused()).toEqual([`${server.url}/graphql`]);

    // Opened while signed in, the page has the token from the start: nothing is refused.
    await page.reload({ waitUntil: "load", timeout: 60_000 });
    await waitForText(page, ".graphiql-doc-explorer", (text) => text.includes("Query"));
    expect(await runQuery(opened, '"WrittenInGraphiQL_2"')).toContain(author.username);
    expect(refused()).toHaveLength(1);

    const list = await server.rest("GET", "/wiki/list", { query: { search: title } });
    expect(list.body.total).toBe(2);
    expectSelfContained(opened, (response) => response.status() === 403 && response.url() === `${server.url}/graphql`);
  });
});
