import { builder } from "./builder.js";
import "../users/graphql.js";
import "../wiki/graphql.js";
import "../blog/graphql.js";

export const schema = builder.toSchema({ sortSchema: false });
