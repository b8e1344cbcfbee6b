import { Prisma } from "../src/generated/prisma/client.js";
import type { SqlClient } from "../src/db/sql.js";

/** One node of PostgreSQL's EXPLAIN (FORMAT JSON), with the fields the plan tests read. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Heap Fetches"?: number;
  "Parent Relationship"?: string;
  Plans?: PlanNode[];
}

/** The plan's root node of `statement`, explained (with `analyze`, run too). */
export async function explainPlan(sql: SqlClient, statement: Prisma.Sql, options: { analyze?: boolean } = {}): Promise<PlanNode> {
  const [row] = await sql.query<Record<string, unknown>>(Prisma.sql`EXPLAIN (${Prisma.raw(options.analyze ? "ANALYZE, " : "")}FORMAT JSON) ${statement}`);
  // PostgreSQL's driver parses the JSON column; PGlite's may hand back its text.
  const json = Object.values(row!)[0];
  return ((typeof json === "string" ? JSON.parse(json) : json) as { Plan: PlanNode }[])[0]!.Plan;
}

/** Every node of a plan, the root first. */
export const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/** Every node of `statement`'s plan (`explainPlan`). */
export const explainNodes = async (sql: SqlClient, statement: Prisma.Sql, options: { analyze?: boolean } = {}) => nodesOf(await explainPlan(sql, statement, options));

/** The nodes in one line for an assertion's message: type, relation and index of each; `more` adds to each. */
export const describePlan = (nodes: PlanNode[], more: (node: PlanNode) => string = () => "") =>
  nodes.map((node) => `${node["Node Type"]} ${node["Relation Name"] ?? ""} ${node["Index Name"] ?? ""}${more(node)}`).join(" / ");
