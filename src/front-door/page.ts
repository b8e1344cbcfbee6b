import express from "express";
import { PACKAGE } from "../version.js";

/**
 * `GET /`: where a new user lands after `npm start`. Browsers get a small page linking what the server
 * offers; API clients (anything that does not prefer HTML, curl included) get the same links as JSON.
 * `GET /version` answers the server's version and the REST API's versions.
 */

export interface FrontDoorLink {
  rel: string;
  href: string;
  title: string;
}

export const FRONT_DOOR_LINKS: FrontDoorLink[] = [
  { rel: "graphiql", href: "/graphql", title: "GraphiQL: explore and run GraphQL queries, with the schema docs" },
  { rel: "api-docs", href: "/api/docs", title: "REST API documentation (Swagger UI)" },
  { rel: "openapi", href: "/api/openapi.json", title: "OpenAPI 3.1 document of the REST API" },
  { rel: "health", href: "/health", title: "Health: the process is up" },
  { rel: "ready", href: "/ready", title: "Readiness: the database answers" },
  { rel: "version", href: "/version", title: "Server and API versions" },
];

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function renderFrontDoor(apiVersions: string[]): string {
  const items = FRONT_DOOR_LINKS.map((link) => `<li><a rel="${link.rel}" href="${link.href}">${escapeHtml(link.href)}</a> — ${escapeHtml(link.title)}</li>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hubgraph</title>
<link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}code{background:#eee;padding:0 .2rem}</style>
</head>
<body>
<h1>Hubgraph</h1>
<p>Version ${escapeHtml(PACKAGE.version)}; REST API versions ${escapeHtml(apiVersions.join(", "))}.</p>
<ul id="links">
${items}
</ul>
<p>Sign in for a bearer token with <code>POST /api/developer/oauth/token</code> (grant_type=password), or for a cookie session with <code>POST /api/session</code>.</p>
</body>
</html>
`;
}

export function frontDoorRoutes(apiVersions: string[]): express.Router {
  const versions = [...new Set(apiVersions)].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const html = renderFrontDoor(versions);
  const router = express.Router();
  router.get("/", (req, res) => {
    res.vary("Accept");
    // JSON first: a client that says nothing (*/*) is an API client; browsers ask for text/html by name.
    if (req.accepts(["json", "html"]) === "html") return void res.type("html").send(html);
    res.json({ name: PACKAGE.name, version: PACKAGE.version, apiVersions: versions, links: FRONT_DOOR_LINKS });
  });
  router.get("/version", (_req, res) => void res.json({ name: PACKAGE.name, version: PACKAGE.version, apiVersions: versions }));
  return router;
}
