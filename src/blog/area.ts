import type { Area } from "../areas.js";
import { blogOperations } from "../../rest-facade/rows/blog.js";
import "./graphql.js";

export const blogArea: Area = { name: "blog", operations: blogOperations };
