import { expect, it } from "vitest";
import { startServer } from "./server.js";

it("logs one line per request with method, path and status, never the query string", async () => {
  const lines: string[] = [];
  const server = await startServer({}, (line) => lines.push(line));
  try {
    await server.rest("GET", "/wiki/list", { query: { search: "secret-looking-value" } });
    await server.rest("GET", "/wiki/abc");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/api\/wiki\/list 200 \d+ - [\d.]+ ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/api\/wiki\/abc 400 /));
    expect(lines.join("\n")).not.toContain("secret-looking-value");
  } finally {
    await server.close();
  }
});
