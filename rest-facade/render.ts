import {
  GraphQLEnumType,
  GraphQLObjectType,
  Kind,
  getNamedType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { restTimestamp } from "../src/common/time.js";

/**
 * REST encodes two scalars differently from GraphQL: DateTime as `YYYY-MM-DD HH:mm:ss` (UTC) and
 * integer IDs as numbers. A plan per document, worked out once from the schema, says which response
 * keys hold such values, so rendering is a walk of the result with no per-field configuration.
 */
type Plan = { [responseKey: string]: RestEncoding | Plan };

/** How REST writes a value of a GraphQL type when it differs from GraphQL's JSON; null when it does not. */
export type RestEncoding = "timestamp" | "id" | GraphQLEnumType;

/** An enum of documented numbers (access levels): REST carries the numbers, GraphQL the names (rest-facade/enums.ts). */
export const isNumericEnum = (type: GraphQLNamedType): type is GraphQLEnumType =>
  type instanceof GraphQLEnumType && type.getValues().every((value) => typeof value.value === "number");

/** A numbered enum REST shows by name (`open`) and takes by name or number (src/common/access.ts, `restNames`). */
export const showsRestNames = (type: GraphQLEnumType): boolean => Boolean(type.extensions?.restNames);

/** The REST name of an enum value (`INVITE_ONLY` → `invite_only`). */
export const restNameOf = (value: { name: string; extensions?: { restName?: unknown } }): string =>
  typeof value.extensions?.restName === "string" ? value.extensions.restName : value.name.toLowerCase();

/**
 * The one place that says which GraphQL types REST writes its own way; the renderer below and the
 * OpenAPI response schemas (openapi.ts) both ask it.
 */
export function restEncoding(named: GraphQLNamedType): RestEncoding | null {
  if (named.name === "DateTime") return "timestamp";
  if (named.name === "ID") return "id";
  return isNumericEnum(named) ? named : null;
}

/** A row's document as the walks of its selection need it: the root type, the selection, the fragments by name. */
export function documentRoot(schema: GraphQLSchema, document: DocumentNode) {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) throw new Error("document has no operation");
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const root = operation.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
  return { root: root!, selectionSet: operation.selectionSet, fragments };
}

export function renderPlan(schema: GraphQLSchema, document: DocumentNode): Plan {
  const { root, selectionSet, fragments } = documentRoot(schema, document);
  return planFor(root, selectionSet, fragments);
}

function planFor(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): Plan {
  const plan: Plan = {};
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      Object.assign(plan, planFor(type, fragments.get(selection.name.value)!.selectionSet, fragments));
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      Object.assign(plan, planFor(type, selection.selectionSet, fragments));
      continue;
    }
    const field = type.getFields()[selection.name.value];
    if (!field) continue;
    const named = getNamedType(field.type as GraphQLOutputType);
    const key = selection.alias?.value ?? selection.name.value;
    const encoding = restEncoding(named);
    if (encoding) plan[key] = encoding;
    else if (named instanceof GraphQLObjectType && selection.selectionSet) plan[key] = planFor(named, selection.selectionSet, fragments);
  }
  return plan;
}

/**
 * A GraphQL result (part) in REST's encoding. Records and lists are rewritten in place: the result is the
 * request's own and is not read again, and a page of 25 records would otherwise be copied key by key.
 */
export function render(value: unknown, plan: Plan | RestEncoding): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = render(value[index], plan);
    return value;
  }
  if (plan instanceof GraphQLEnumType) {
    const found = plan.getValue(String(value));
    if (!found) return value;
    return showsRestNames(plan) ? restNameOf(found) : found.value;
  }
  if (plan === "timestamp") return restTimestamp(value as string);
  if (plan === "id") return /^\d+$/.test(String(value)) ? Number(value) : value;
  if (typeof value !== "object") return value; // a scalar result field (e.g. a mutation answering a string)
  const record = value as Record<string, unknown>;
  for (const key in plan) if (key in record) record[key] = render(record[key], plan[key]!);
  return record;
}

