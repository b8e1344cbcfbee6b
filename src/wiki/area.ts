import type { Area } from "../areas.js";
import { wikiOperations } from "../../rest-facade/rows/wiki.js";
import "./graphql.js";

export const wikiArea: Area = { name: "wiki", operations: wikiOperations };
