import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

// GraphiQL must work without internet access: the page and everything it loads (scripts, styles, the
// Monaco web workers) come from this server. The browser test (test/browser/) runs it for real.
describe("GraphiQL page", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  const openPage = () => fetch(`${server.url}/graphql`, { headers: { accept: "text/html" } });

  it("references only same-origin files, and each of them answers 200", async () => {
    const response = await openPage();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();

    // No absolute URL at all, so nothing can point at a CDN.
    expect(html.match(/\b(?:https?:)?\/\/[a-z0-9.-]+/gi) ?? []).toEqual([]);

    const referenced = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    const config = JSON.parse(/<script type="application\/json" id="graphiql-config">([^<]*)<\/script>/.exec(html)![1]!);
    const workers = Object.values(config.workers as Record<string, string>);
    expect(workers.length).toBe(3);
    const urls = [...referenced.filter((url) => !url.startsWith("data:")), ...workers];
    expect(urls.length).toBeGreaterThanOrEqual(6);

    for (const url of urls) {
      const target = new URL(url, response.url);
      expect(target.origin, url).toBe(server.url);
      const asset = await fetch(target);
      expect(asset.status, url).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(0);
    }
  });

  it("opens with an example query", async () => {
    const html = await (await openPage()).text();
    const config = JSON.parse(/id="graphiql-config">([^<]*)</.exec(html)![1]!);
    expect(config.graphiql.title).toBe("Hubgraph GraphiQL");
    expect(config.graphiql.query).toMatch(/wikiPages\([^)]*\) \{\s+total\s+items \{/);
    // The example is a valid query against the schema.
    const run = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: config.graphiql.query }),
    });
    expect(await run.json()).toEqual({ data: { wikiPages: { total: 0, items: [] } } });
  });

  it("serves the packaged files for keeps and answers 404 for files that do not exist", async () => {
    const html = await (await openPage()).text();
    const bundle = /src="([^"]*yoga-graphiql\.umd\.js)"/.exec(html)![1]!;
    const response = await fetch(new URL(bundle, server.url));
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("content-type")).toMatch(/javascript/);
    const missing = await fetch(new URL(bundle.replace("yoga-graphiql.umd.js", "nothing-here.js"), server.url));
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe(404);
  });
});
