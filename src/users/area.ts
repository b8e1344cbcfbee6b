import type { Area } from "../areas.js";
import { memberOperations } from "../../rest-facade/rows/members.js";
import "./graphql.js";

export const membersArea: Area = { name: "members", operations: memberOperations };
