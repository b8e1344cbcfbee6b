import type { CodegenConfig } from "@graphql-codegen/cli";
import { printSchema } from "graphql";
import { schema } from "./src/graphql/schema.js";

/**
 * `npm run codegen` writes the schema SDL (src/generated/schema.graphql, for GraphiQL-less tooling and
 * review) and typed documents for the facade and the tests. `npm run codegen:check` fails when they are stale.
 */
const config: CodegenConfig = {
  schema: printSchema(schema),
  documents: ["rest-facade/documents/*.graphql", "test/documents/*.graphql"],
  generates: {
    "src/generated/schema.graphql": { plugins: ["schema-ast"] },
    "rest-facade/generated/graphql.ts": {
      plugins: ["typescript-operations", "typed-document-node"],
      config: {
        scalars: { DateTime: "string", JSON: "unknown", ID: "string" },
        useTypeImports: true,
        enumsAsTypes: true,
        avoidOptionals: false,
        skipTypename: true,
        dedupeFragments: true,
      },
    },
  },
  hooks: { afterAllFileWrite: [] },
};

export default config;
