/**
 * The layering of docs/architecture.md, as rules dependency-cruiser checks (`npm run deps:check`, and
 * test/architecture.test.ts in every test pass). A layer imports only the layers below it:
 *
 *   HTTP (src/app.ts, src/http, src/auth/http.ts) → surfaces (/graphql, rest-facade/) → execution (src/execution)
 *   → schema (src/graphql) → areas (src/<area>) → kit (src/common) → database (src/db)
 *
 * Type-only imports count like any other (`tsPreCompilationDeps: true`): a type names the module it comes
 * from, and an arrow that points up for a type is still an arrow that points up.
 */

/** The areas: every folder of src/ that is not a layer of its own (src/db, src/common, src/graphql, …). */
const AREAS = "^src/(activity|announcements|blog|citations|forum|groups|plugins|scopes|users|webhooks|wiki)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import circle anywhere: a module's imports must not lead back to it.",
      from: {},
      to: { circular: true },
    },
    {
      name: "db-imports-nothing-above",
      severity: "error",
      comment:
        "src/db is the bottom layer: it imports no kit, schema, execution, area, surface or HTTP module, and so knows no HTTP status (errors are mapped where the answer is made).",
      from: { path: "^src/db/" },
      to: {
        path: [
          "^src/common/",
          "^src/graphql/",
          "^src/execution/",
          "^src/http/",
          "^src/auth/",
          "^src/app\\.ts$",
          "^rest-facade/",
          AREAS,
          "(^|/)node_modules/express/",
        ],
      },
    },
    {
      name: "kit-imports-no-surface-or-area",
      severity: "error",
      comment: "src/common (the kit) imports no REST facade, schema, execution or area module: they are built on it.",
      from: { path: "^src/common/" },
      to: {
        path: ["^rest-facade/", "^src/graphql/", "^src/execution/", "^src/http/", "^src/auth/", "^src/events/", "^src/cli/", "^src/app\\.ts$", "^src/main\\.ts$", "^src/areas\\.ts$", "^src/scope-kinds\\.ts$", AREAS],
      },
    },
    {
      name: "accounts-do-not-reach-into-authentication",
      severity: "error",
      comment: "src/users (accounts) imports nothing of src/auth (OAuth, tokens, sessions): authentication may import accounts, not the reverse.",
      from: { path: "^src/users/" },
      to: { path: "^src/auth/" },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    // The bench peers' own installs (bench/peers/<name>/node_modules): not ours to cruise. Not node_modules at large,
    // or an import of express from src/db would leave the graph before its rule saw it.
    exclude: { path: ["^src/generated/", "(^|/)rest-facade/generated/", "^test/generated/", "^bench/peers/[^/]+/node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
