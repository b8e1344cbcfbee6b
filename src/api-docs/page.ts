import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import express from "express";
import { schema } from "../graphql/schema.js";
import { restOperations } from "../../rest-facade/table.js";
import { DOCS_PATH, OPENAPI_PATH, buildApiDocument, type OpenApiDocument } from "./document.js";

/**
 * `GET /api/openapi.json` and the docs page `GET /api/docs`: Swagger UI from the installed
 * swagger-ui-dist package, served by this server like GraphiQL (src/graphiql/), so the page works
 * without internet access (no CDN, no web fonts, no online validator badge).
 */

let built: OpenApiDocument | undefined;

/** The document, built once per process from the facade table and the schema. */
export function apiDocument(): OpenApiDocument {
  built ??= buildApiDocument(schema, restOperations);
  return built;
}

const require = createRequire(import.meta.url);
const packageJson = require.resolve("swagger-ui-dist/package.json");
const { version } = require(packageJson) as { version: string };
const vendorDir = path.dirname(packageJson);
const browserDir = fileURLToPath(new URL("./browser", import.meta.url));

/** Where the packaged Swagger UI files are served; the version in the path lets browsers keep them for good. */
export const SWAGGER_UI_VENDOR_PATH = `/api-docs/vendor/${version}`;
/** Our own page script, revalidated on every use. */
export const API_DOCS_SCRIPT_PATH = "/api-docs/start.js";

/** The packaged Swagger UI files and the page script. Mounted before authentication: they are public. */
export function apiDocsAssets(): express.Router {
  const router = express.Router();
  router.use(SWAGGER_UI_VENDOR_PATH, express.static(vendorDir, { immutable: true, maxAge: "365d", index: false, fallthrough: false }));
  router.get(API_DOCS_SCRIPT_PATH, (_req, res) => {
    res.set("Cache-Control", "no-cache").sendFile("start.js", { root: browserDir });
  });
  return router;
}

/** The document and the page, mounted under /api before the facade. */
export function apiDocsRoutes(document: OpenApiDocument): express.Router {
  const router = express.Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.locals.operation = `GET /api${OPENAPI_PATH}`;
    res.json(document);
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.locals.operation = `GET /api${DOCS_PATH}`;
    res.type("html").send(renderDocsPage());
  });
  return router;
}

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

function renderDocsPage(): string {
  const config = { url: `/api${OPENAPI_PATH}` };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hubgraph API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${SWAGGER_UI_VENDOR_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui">Loading the Hubgraph API documentation…</div>
<script type="application/json" id="api-docs-config">${scriptJson(config)}</script>
<script src="${SWAGGER_UI_VENDOR_PATH}/swagger-ui-bundle.js"></script>
<script src="${API_DOCS_SCRIPT_PATH}"></script>
</body>
</html>
`;
}
