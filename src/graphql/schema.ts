import { builder } from "./builder.js";
// Importing the registry registers every area's types, queries and mutations with the builder.
import "../areas.js";

export const schema = builder.toSchema({ sortSchema: false });
