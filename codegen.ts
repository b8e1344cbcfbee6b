import { existsSync, readdirSync } from "node:fs";
import { basename } from "node:path";
import type { CodegenConfig } from "@graphql-codegen/cli";
import { printSchema } from "graphql";
import { schema } from "./src/graphql/schema.js";

/**
 * `npm run codegen` writes the schema SDL (src/generated/schema.graphql, for GraphiQL-less tooling and
 * review) and typed documents: one generated file per documents file, so two areas never edit the same
 * generated file. `rest-facade/documents/<name>.graphql` → `rest-facade/generated/<name>.ts`, and the tests'
 * `test/documents/<name>.graphql` → `test/generated/<name>.ts` (outside the production folders).
 * A new documents file is found by itself. `npm run codegen:check` fails when any output is stale.
 */
/** One output's settings (the config type's own, not a transitive package's). */
type Output = Exclude<CodegenConfig["generates"][string], unknown[]>;

const typedDocuments: Output = {
  plugins: ["typescript-operations", "typed-document-node"],
  config: {
    scalars: { DateTime: "string", JSON: "unknown", ID: "string" },
    useTypeImports: true,
    enumsAsTypes: true,
    avoidOptionals: false,
    skipTypename: true,
    dedupeFragments: true,
  },
};

/** One output per `<from>/<name>.graphql`, written to `<to>/<name>.ts`. */
function perDocumentsFile(from: string, to: string): Record<string, Output> {
  const names = readdirSync(from)
    .filter((file) => file.endsWith(".graphql"))
    .map((file) => basename(file, ".graphql"))
    .sort();
  // --check compares only the files it writes: a generated file whose documents are gone would linger unseen.
  const orphans = existsSync(to) ? readdirSync(to).filter((file) => file.endsWith(".ts") && !names.includes(basename(file, ".ts"))) : [];
  if (orphans.length) throw new Error(`${orphans.map((file) => `${to}/${file}`).join(", ")}: no documents file in ${from}/ generates it; delete it`);
  return Object.fromEntries(names.map((name) => [`${to}/${name}.ts`, { ...typedDocuments, documents: `${from}/${name}.graphql` }]));
}

const config: CodegenConfig = {
  schema: printSchema(schema),
  generates: {
    "src/generated/schema.graphql": { plugins: ["schema-ast"] },
    ...perDocumentsFile("rest-facade/documents", "rest-facade/generated"),
    ...perDocumentsFile("test/documents", "test/generated"),
  },
};

export default config;
