import { GraphQLObjectType, Kind, getNamedType, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type SelectionSetNode } from "graphql";
import type { ParameterProblem } from "../src/common/errors.js";
import { documentRoot } from "./render.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/**
 * `fields`: which keys of the answered record (each item of a list) a REST caller wants, as the API
 * document's `fields=gidNumber,cn,…` (GET /groups/list, GET /groups/{id}). A generic row feature: the
 * parameter's format `fields` makes the facade keep only the named keys of the rendered answer; the
 * names it takes are the keys the row's document selects (its REST names), unknown names are 400 naming
 * the parameter, and `alwaysKept` keys are in every answer. It feeds no GraphQL variable: the document
 * selects every key, and the projection is the facade's.
 */
export function fieldsParam(options: { default: string[]; alwaysKept: string[]; description: string; name?: string }): RestParam {
  return {
    name: options.name ?? "fields",
    type: "string",
    format: "fields",
    required: false,
    default: options.default.join(","),
    description: `${options.description} Comma-separated; always includes ${options.alwaysKept.join(", ")} (default ${options.default.join(",")}).`,
    variable: "",
    alwaysKept: options.alwaysKept,
  };
}

export const isFieldsParam = (param: RestParam) => param.format === "fields";

/** The response keys a row's document selects for its record (for a list: for each of its `items`). */
export function selectedKeys(schema: GraphQLSchema, document: DocumentNode, resultField: string): string[] {
  const { root, selectionSet, fragments } = documentRoot(schema, document);
  const result = fieldSelection(root, selectionSet, fragments, resultField);
  if (!result) return [];
  const items = fieldSelection(result.type, result.selectionSet, fragments, "items");
  const record = items ?? result;
  return keysOf(record.selectionSet, fragments);
}

function fieldSelection(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, name: string): { type: GraphQLObjectType; selectionSet: SelectionSetNode } | null {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD && (selection.alias?.value ?? selection.name.value) === name && selection.selectionSet) {
      const named = getNamedType(type.getFields()[selection.name.value]!.type);
      if (named instanceof GraphQLObjectType) return { type: named, selectionSet: selection.selectionSet };
    }
  }
  return null;
}

function keysOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): string[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection.alias?.value ?? selection.name.value];
    if (selection.kind === Kind.FRAGMENT_SPREAD) return keysOf(fragments.get(selection.name.value)!.selectionSet, fragments);
    return keysOf(selection.selectionSet, fragments);
  });
}

/** The keys one request keeps, or the problem naming the parameter. */
export function requestedKeys(param: RestParam, raw: unknown, selectable: readonly string[]): { keys: Set<string> } | { problem: ParameterProblem } {
  const given = raw === undefined || raw === null || raw === "" ? String(param.default ?? "") : raw;
  const names = (Array.isArray(given) ? given.map(String).join(",") : typeof given === "string" ? given : "\u0000")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !selectable.includes(name));
  if (unknown.length) {
    const shown = unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(", ");
    return { problem: { parameter: param.name, message: `unknown field(s) ${shown}: must be among ${selectable.join(", ")}` } };
  }
  return { keys: new Set([...(param.alwaysKept ?? []), ...names]) };
}

/** The rendered answer with only `keys` kept: of the record, or of each item of a list (`items` or a bare array). */
export function project(value: unknown, keys: ReadonlySet<string>): unknown {
  const pick = (record: unknown) =>
    record && typeof record === "object" && !Array.isArray(record) ? Object.fromEntries(Object.entries(record).filter(([key]) => keys.has(key))) : record;
  if (Array.isArray(value)) return value.map(pick);
  if (value && typeof value === "object" && Array.isArray((value as { items?: unknown }).items)) {
    const list = value as { items: unknown[] };
    return { ...list, items: list.items.map(pick) };
  }
  return pick(value);
}

/** Start-up check of a fields parameter: its default and always-kept keys are keys the document selects. */
export function fieldsParamProblems(param: RestParam, selectable: readonly string[]): string[] {
  const named = [...String(param.default ?? "").split(","), ...(param.alwaysKept ?? [])].map((name) => name.trim()).filter(Boolean);
  return named.filter((name) => !selectable.includes(name)).map((name) => `parameter "${param.name}" names "${name}", which the document does not select`);
}
