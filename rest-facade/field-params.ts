import { describedFor, fieldsOf, restName, textOf, type FieldDeclaration, type AnyFields } from "../src/common/fields.js";
import type { ParamType, RestParam } from "../src/common/rest-vocabulary.js";

/** A REST type and format after a GraphQL input type (src/common/fields.ts, RestDeclaration.type). */
function restTypeOf(field: FieldDeclaration): { type: ParamType; format?: RestParam["format"] } {
  switch (field.type) {
    case "String":
      return { type: "string" };
    case "DateTime":
      return { type: "string", format: "timestamp" };
    case "JSON":
      return { type: "array", format: "map" };
    case "[String]":
      return { type: "array" };
    case "Int":
      return { type: "integer" };
    case "Boolean":
      return { type: "boolean" };
    default:
      // Access levels by their documented numbers; named numbers by their names (which take numbers too).
      return { type: field.type.restNames ? "string" : "integer" };
  }
}

/**
 * A write row's parameters from the area's field table, in the table's order: `create` for POST (the
 * create input's fields, required as the table says), `replace` for PUT (the update input's fields,
 * required where the table requires them on PUT too). Each feeds `input.<field>`. A row names the
 * fields it does not take in `except` (the wiki's POST has no `summary`).
 */
export function fieldParams(table: AnyFields, mode: "create" | "replace", options: { except?: string[] } = {}): RestParam[] {
  const input = mode === "create" ? "create" : "update";
  return fieldsOf(table, input)
    .filter(([name, field]) => field.rest !== false && !options.except?.includes(name))
    .map(([name, field]) => {
      const rest = field.rest || {};
      const derived = restTypeOf(field);
      const fallback = field.default;
      const format = rest.format ?? (rest.type ? undefined : derived.format);
      return {
        name: rest.name ?? restName(name),
        type: rest.type ?? derived.type,
        required: mode === "create" ? Boolean(field.required) : field.required === true,
        ...(fallback === undefined ? {} : { default: fallback }),
        description: textOf(rest.description) ?? describedFor(field.description, input) ?? "",
        variable: `input.${name}`,
        ...(format ? { format } : {}),
        ...(rest.privacy ? { privacy: true } : {}),
        ...(rest.clears !== undefined ? { clears: rest.clears } : {}),
        ...(rest.alsoNamed ? { alsoNamed: rest.alsoNamed } : {}),
      };
    });
}
