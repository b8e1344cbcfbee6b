import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../server.js";
import { SKIPPED_LINE, hasBrowser, launchBrowser, offlineProblems, policyViolations, waitForText, type TestBrowser } from "./browser.js";

// The front door (GET /) in a real headless Chromium: a page, under the server's Content-Security-Policy,
// whose links lead to GraphiQL, the API docs, the OpenAPI document, health and the version.
if (!hasBrowser) console.log(SKIPPED_LINE);

describe.skipIf(!hasBrowser)("front door in a browser", { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the links, and each one answers", async () => {
    const opened = await browser.open(`${server.url}/`);
    const { page } = opened;
    expect(await page.title()).toBe("Hubgraph");
    const text = await waitForText(page, "#links", (shown) => shown.includes("/graphql"));
    for (const href of ["/graphql", "/api/docs", "/api/openapi.json", "/health", "/version"]) expect(text).toContain(href);
    const hrefs = await page.$$eval("#links a", (anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
    for (const href of hrefs) {
      const response = await fetch(href, { headers: { accept: "text/html" } });
      expect(response.status, href).toBe(200);
    }
    // Following a link in the browser lands on that page: GraphiQL.
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('#links a[rel="graphiql"]')]);
    expect(await page.title()).toBe("Hubgraph GraphiQL");
    expect(offlineProblems(opened, (response) => response.url().endsWith("/api/session"))).toEqual([]);
    expect(policyViolations(opened)).toEqual([]);
  });
});
