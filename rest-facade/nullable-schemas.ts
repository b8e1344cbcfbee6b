import type { JsonSchema } from "./openapi-types.js";

// Null in the JSON Schemas openapi.ts builds (`type` a name or a list of names, `enum` a list of values):
// one place that adds it, tests for it and takes it away again, so the three cannot disagree.

type Typed = { type?: string | string[]; enum?: unknown[] };

/** A nullable GraphQL type: `null` joins the JSON types (and the enum's values). */
export function orNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values } = schema as Typed;
  if (type === undefined) return schema; // any JSON value already includes null
  const types = Array.isArray(type) ? type : [type];
  return { ...schema, type: [...types, "null"], ...(values ? { enum: [...values, null] } : {}) } as JsonSchema;
}

/** Whether the schema admits null. */
export function admitsNull(schema: JsonSchema): boolean {
  const { type } = schema as Typed;
  return type === "null" || (Array.isArray(type) && type.includes("null"));
}

/** The schema without its null alternative (what `orNull` added): e.g. a null result answered as 204, not as a body. */
export function withoutNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values } = schema as Typed;
  if (!Array.isArray(type) || !type.includes("null")) return schema;
  const rest = type.filter((name) => name !== "null");
  return {
    ...schema,
    type: rest.length === 1 ? rest[0] : rest,
    ...(values ? { enum: values.filter((value) => value !== null) } : {}),
  } as JsonSchema;
}
