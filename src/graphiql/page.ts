import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import express from "express";
import type { GraphiQLOptions } from "graphql-yoga";

/**
 * GraphiQL served entirely from this server. graphql-yoga's built-in page loads GraphiQL, its styles and
 * its Monaco web workers from unpkg.com, so without internet access it stays a blank "Loading…" page. The
 * same build ships in the @graphql-yoga/graphiql package (one UMD file with React and GraphiQL 5 inside,
 * its stylesheet with fonts inlined, three classic worker scripts); this module serves those files and
 * renders a page that points at them.
 */

const require = createRequire(import.meta.url);
const packageJson = require.resolve("@graphql-yoga/graphiql/package.json");
const { version } = require(packageJson) as { version: string };
const vendorDir = path.join(path.dirname(packageJson), "dist");
const browserDir = fileURLToPath(new URL("./browser", import.meta.url));

/** Where the packaged GraphiQL files are served; the version in the path lets browsers keep them for good. */
export const GRAPHIQL_VENDOR_PATH = `/graphiql/vendor/${version}`;
/** Our own page script: it changes with Hubgraph, not with the package, so it is revalidated. */
export const GRAPHIQL_SCRIPT_PATH = "/graphiql/start.js";

/** Monaco asks for a worker by label; these are the files of the package (the double dot is its real name). */
export const GRAPHIQL_WORKERS: Record<string, string> = {
  editorWorkerService: `${GRAPHIQL_VENDOR_PATH}/monacoeditorwork/editor.worker.bundle.js`,
  json: `${GRAPHIQL_VENDOR_PATH}/monacoeditorwork/json.worker.bundle.js`,
  graphql: `${GRAPHIQL_VENDOR_PATH}/monacoeditorwork/graphql.worker..bundle.js`,
};

export const EXAMPLE_QUERY = `# Welcome to Hubgraph GraphiQL. Run this query with Ctrl+Enter or the ▶ button;
# the Docs panel on the left describes every type and field.
#
# Signed in with a cookie session (POST /api/session)? GraphiQL sends your CSRF token,
# so mutations work too. With a bearer token instead, open Headers below and put
#   {"Authorization": "Bearer <access_token>"}
query RecentWikiPages {
  wikiPages(limit: 5, sort: "modified", sortDir: "desc") {
    total
    items {
      id
      title
      pagename
      revisionCount
      modified
      createdBy {
        username
      }
    }
  }
}
`;

/** The options graphql-yoga passes to `renderGraphiQL`. */
export const graphiqlOptions: GraphiQLOptions = {
  title: "Hubgraph GraphiQL",
  defaultQuery: EXAMPLE_QUERY,
};

/** Serves the packaged GraphiQL files and the page script. Mounted before authentication: they are public. */
export function graphiqlAssets(): express.Router {
  const router = express.Router();
  router.use(GRAPHIQL_VENDOR_PATH, express.static(vendorDir, { immutable: true, maxAge: "365d", index: false, fallthrough: false }));
  router.get(GRAPHIQL_SCRIPT_PATH, (_req, res) => {
    res.set("Cache-Control", "no-cache").sendFile("start.js", { root: browserDir });
  });
  return router;
}

/** JSON that is safe inside a <script> element: `<` never appears, so `</script>` cannot end it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The page graphql-yoga answers `GET /graphql` with when a browser asks for HTML. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const { defaultQuery, ...rest } = options;
  const title = options.title ?? "GraphiQL";
  // The yoga GraphiQL component opens `query` (or the query kept in the page's URL while editing).
  const config = { workers: GRAPHIQL_WORKERS, graphiql: { ...rest, query: defaultQuery } };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${GRAPHIQL_VENDOR_PATH}/graphiql.css">
</head>
<body>
<div id="graphiql">Loading ${escapeHtml(title)}…</div>
<script type="application/json" id="graphiql-config">${scriptJson(config)}</script>
<script src="${GRAPHIQL_SCRIPT_PATH}"></script>
<script src="${GRAPHIQL_VENDOR_PATH}/yoga-graphiql.umd.js"></script>
</body>
</html>
`;
}
