import { builder } from "./builder.js";
// Importing the registry registers every area's types, queries and mutations with the builder.
import "../areas.js";
import { assertEveryAreaHasGraphql } from "./area.js";

// An area declared after src/areas.ts made the declared areas' GraphQL would have none: refused, not silent.
assertEveryAreaHasGraphql();

export const schema = builder.toSchema({ sortSchema: false });
