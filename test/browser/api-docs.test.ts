import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../server.js";
import { SKIPPED_LINE, hasBrowser, launchBrowser, policyViolations, nonLoopbackRequests, offlineProblems, waitForText, type TestBrowser } from "./browser.js";

// The API docs page (/api/docs, Swagger UI from swagger-ui-dist) in a real headless Chromium: it renders
// the OpenAPI document's operations and runs one, from this server's files alone.
if (!hasBrowser) console.log(SKIPPED_LINE);

describe.skipIf(!hasBrowser)("API docs page in a browser", { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startServer();
    const author = await server.user();
    const created = await server.rest("POST", "/wiki", { token: author.token, body: { title: "Docs Page Test", pagetext: "Listed.", state: 1 } });
    expect(created.status).toBe(201);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows every area's operations and runs one with Try it out, with no request leaving 127.0.0.1", async () => {
    const opened = await browser.open(`${server.url}/api/docs`);
    const { page } = opened;
    expect(await page.title()).toBe("Hubgraph API");
    const text = await waitForText(page, "#swagger-ui", (shown) => shown.includes("/v1.0/wiki/list") && shown.includes("/developer/oauth/token")).catch((error: Error) => {
      throw new Error(`${error.message}\nbrowser errors: ${opened.errors.join("\n")}`);
    });
    for (const path of ["/v1.0/blog/list", "/v1.1/citations/list", "/v1.0/members/me", "/session"]) expect(text).toContain(path);

    // Expand GET /v1.0/wiki/list, Try it out, Execute: the live response lists the page.
    const operation = "#operations-wiki-getV1_0WikiList";
    await page.click(`${operation} .opblock-summary`);
    await page.waitForSelector(`${operation} .try-out__btn`, { timeout: 30_000 });
    await page.click(`${operation} .try-out__btn`);
    await page.waitForSelector(`${operation} .execute`, { timeout: 30_000 });
    await page.click(`${operation} .execute`);
    const response = await waitForText(page, `${operation} .live-responses-table`, (shown) => shown.includes("Docs Page Test"));
    expect(response).toContain('"total": 1');

    expect(nonLoopbackRequests(opened.requests)).toEqual([]);
    expect(offlineProblems(opened)).toEqual([]);
    expect(policyViolations(opened)).toEqual([]);
  });
});
