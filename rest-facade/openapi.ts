import {
  GraphQLEnumType,
  Kind,
  getNamedType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { REST_TIMESTAMP_PATTERN } from "../src/common/time.js";
import { readsPlaceholder } from "./check.js";
import { documentRoot, restEncoding, restNameOf, showsRestNames } from "./render.js";
import { isFieldsParam } from "./fields-param.js";
import { IGNORED_PARAMETERS_HEADER, mustBeGiven } from "./params.js";
import { orNull } from "./nullable-schemas.js";
import { changesOneRecord, runsMutation } from "../src/execution/conditions.js";
import { registeredRequestParsers } from "./request-parsers.js";
import { responseKind, type RowWithResponse } from "./responses.js";
import type { HttpMethod, JsonSchema, MediaTypeObject, OperationObject, ParameterObject, PathsObject } from "./openapi-types.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/**
 * The facade table as OpenAPI 3.1 paths: one path per row and version (`/v1.0/wiki/list`; the
 * unversioned path, `?v=` and the Accept header reach the same operation, docs/decisions.md "OpenAPI"),
 * parameters from the row's declarations, and the success response worked out from the row's GraphQL
 * selection with the renderer's own rules (render.ts `restEncoding`) and the response kind's own
 * `describe` (responses.ts). Error responses and security schemes are the caller's (src/api-docs/).
 */
export interface FacadePathsOptions {
  schema: GraphQLSchema;
  operations: RestOperation[];
  /** The security requirements of a row, from who may call it (the auth module names the schemes). */
  security(operation: RestOperation): Record<string, string[]>[];
}

export function facadePaths({ schema, operations, security }: FacadePathsOptions): PathsObject {
  const paths: PathsObject = {};
  for (const operation of operations) {
    const { body, others } = responseBody(schema, operation);
    for (const version of operation.versions) {
      const path = versionedPath(version, operation.path);
      const method = operation.method.toLowerCase() as HttpMethod;
      const item = (paths[path] ??= {});
      if (item[method]) throw new Error(`two facade rows answer ${operation.method} ${path}`);
      item[method] = {
        operationId: operationId(operation.method, path),
        summary: operation.task,
        description: `${capitalise(operation.access)} may call it. Also reached at \`/api${operation.path}\` with \`?v=${version}\` or \`Accept: application/vnd.hubgraph.v${version}+json\`${
          version === "1.0" ? " (1.0 is the version of a request that names none)" : ""
        }.`,
        tags: [operation.area],
        ...withWriteConditionHeaders(schema, operation, requestOf(operation)),
        responses: {
          [String(operation.status)]: {
            description: successDescription(operation.status),
            headers: { [IGNORED_PARAMETERS_HEADER]: IGNORED_PARAMETERS_HEADER_OBJECT },
            ...(body ? { content: { [body.mediaType]: { schema: body.schema } } } : {}),
          },
          ...Object.fromEntries(Object.entries(others).map(([status, description]) => [status, { description, headers: { [IGNORED_PARAMETERS_HEADER]: IGNORED_PARAMETERS_HEADER_OBJECT } }])),
        },
        security: security(operation),
      };
    }
  }
  return paths;
}

/**
 * The response header X-Ignored-Parameters (router.ts): on any answer of a facade operation whose request
 * sent names the operation does not read. Referenced by every facade response, errors included.
 */
export const IGNORED_PARAMETERS_HEADER_OBJECT = { $ref: "#/components/headers/IgnoredParameters" };
export const IGNORED_PARAMETERS_HEADER_COMPONENT = {
  description:
    "The query or body parameters the request sent that this operation (in the version that answered) does not read, comma-separated, each percent-encoded when not plain: they were ignored. A misspelt name shows here. A parameter of another version of the operation is not ignored: it is a 400 naming that version.",
  schema: { type: "string" },
};

/**
 * The headers of safe retries and conditional writes (src/execution/conditions.ts) as parameters of the
 * rows they apply to, by the execution core's own rules: Idempotency-Key where a POST row runs a mutation,
 * If-Match where it changes one record.
 */
function withWriteConditionHeaders(schema: GraphQLSchema, operation: RestOperation, request: Pick<OperationObject, "parameters" | "requestBody">) {
  const header = (name: string, description: string): ParameterObject => ({ name, in: "header", required: false, description, schema: { type: "string" } });
  const headers = [
    ...(operation.method === "POST" && runsMutation(operation.document)
      ? [header("Idempotency-Key", "Makes a retry safe: the request repeated with the same key (1-255 visible ASCII characters, kept a day) gets the first answer again instead of writing twice; the key with another request is 422, and while the first is still running 409.")]
      : []),
    ...(changesOneRecord(schema, operation.document)
      ? [header("If-Match", "The ETag of the record as last read: the write is made only if the record is still at that version, else 412 and nothing changes.")]
      : []),
  ];
  return headers.length ? { ...request, parameters: [...(request.parameters ?? []), ...headers] } : request;
}

/** The row's path under a version prefix, as the router also accepts it (versions.ts). */
export const versionedPath = (version: string, path: string) => `/v${version}${path}`;

const operationId = (method: string, path: string) =>
  `${method.toLowerCase()}${path.replace(/[{}]/g, "").replace(/\/v(\d+)\.(\d+)/, "V$1_$2").split("/").map(capitalise).join("")}`;

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const successDescription = (status: number) => ({ 200: "OK", 201: "Created", 204: "No content" })[status] ?? `Status ${status}`;

/**
 * A row with a `fields` parameter (rest-facade/fields-param.ts) answers the keys asked for: only its
 * always-kept keys are certain to be there (of the record, or of each list item).
 */
function withProjection(value: JsonSchema, fields: RestParam | undefined): JsonSchema {
  if (!fields) return value;
  const relax = (record: JsonSchema): JsonSchema => ({ ...record, required: (record.required ?? []).filter((key) => fields.alwaysKept?.includes(key)) });
  const items = value.properties?.items;
  if (items?.type === "array" && items.items) return { ...value, properties: { ...value.properties, items: { ...items, items: relax(items.items as JsonSchema) } } };
  return relax(value);
}

/** The success body: the kind's description of the rendered result field. */
function responseBody(schema: GraphQLSchema, operation: RestOperation) {
  const kind = responseKind(operation.response.kind);
  if (!kind) throw new Error(`response kind "${operation.response.kind}" is not registered`);
  const value = withProjection(resultFieldSchema(schema, operation.document, operation.resultField), operation.params.find(isFieldsParam));
  const row = operation as RowWithResponse<never>;
  return { body: kind.describe(row, value), others: kind.otherResponses?.(row, value) ?? {} };
}

// ---------------------------------------------------------------------------------------------
// Response schemas from GraphQL selections

/** The JSON Schema of one root field of a document's result, as the facade renders it. */
export function resultFieldSchema(schema: GraphQLSchema, document: DocumentNode, resultField: string): JsonSchema {
  const { root, selectionSet, fragments } = documentRoot(schema, document);
  const result = objectSchema(root, selectionSet, fragments);
  const field = result.properties?.[resultField];
  if (!field) throw new Error(`the document does not select ${resultField}`);
  return field;
}

function objectSchema(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const collect = (selections: SelectionSetNode["selections"], conditional: boolean) => {
    for (const selection of selections) {
      // @skip / @include: the key may be missing.
      const maybe = conditional || Boolean(selection.directives?.some((directive) => ["skip", "include"].includes(directive.name.value)));
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        collect(fragments.get(selection.name.value)!.selectionSet.selections, maybe);
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const applies = !selection.typeCondition || selection.typeCondition.name.value === type.name;
        if (applies) collect(selection.selectionSet.selections, maybe);
        continue;
      }
      const key = selection.alias?.value ?? selection.name.value;
      if (selection.name.value === "__typename") properties[key] = { type: "string", const: type.name };
      else {
        const field = type.getFields()[selection.name.value];
        if (!field) throw new Error(`${type.name} has no field ${selection.name.value}`);
        const described = outputSchema(field.type, selection.selectionSet, fragments);
        properties[key] = field.description ? { description: field.description, ...described } : described;
      }
      if (!maybe) required.add(key);
    }
  };
  collect(selectionSet.selections, false);
  // The renderer copies exactly the selected keys (render.ts), so anything else is a lie of the document.
  return { type: "object", properties, required: [...required], additionalProperties: false };
}

function outputSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (isNonNullType(type)) return nonNullSchema(type.ofType, selectionSet, fragments);
  return orNull(nonNullSchema(type, selectionSet, fragments));
}

function nonNullSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (isListType(type)) return { type: "array", items: outputSchema(type.ofType, selectionSet, fragments) };
  if (isObjectType(type)) return objectSchema(type, selectionSet!, fragments);
  if (isAbstractType(type)) return { type: "object", description: `One of the ${type.name} types.` };
  const named = getNamedType(type);
  const encoding = restEncoding(named);
  if (encoding === "timestamp") return { type: "string", pattern: REST_TIMESTAMP_PATTERN, description: "UTC, YYYY-MM-DD HH:mm:ss" };
  if (encoding === "id") return { type: "integer" };
  if (encoding instanceof GraphQLEnumType) return numberedEnumSchema(encoding);
  if (isEnumType(named)) return { type: "string", enum: named.getValues().map((value) => value.name) };
  if (isScalarType(named)) return scalarSchema(named.name);
  throw new Error(`no JSON Schema for the GraphQL type ${String(type)}`);
}

/** An enum of documented numbers, as the renderer writes it: the numbers, each described. */
function numberedEnumSchema(type: GraphQLEnumType): JsonSchema {
  const values = type.getValues();
  if (showsRestNames(type)) return { type: "string", enum: values.map(restNameOf), description: values.map((value) => value.description).join(", ") };
  return {
    type: "integer",
    enum: values.map((value) => value.value),
    description: values.map((value) => value.description ?? `${value.value}: ${value.name.toLowerCase()}`).join(", "),
  };
}

const SCALARS: Record<string, JsonSchema> = {
  String: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  JSON: {},
};

function scalarSchema(name: string): JsonSchema {
  return SCALARS[name] ?? { description: `GraphQL scalar ${name}` };
}

// ---------------------------------------------------------------------------------------------
// Parameters and request bodies

/**
 * A parameter's description, with the other names it is read under (`alsoNamed`) and, for `privacy`
 * parameters of a PUT, what leaving it out does.
 */
const describedForMethod = (operation: RestOperation, param: RestParam) =>
  [
    param.description,
    ...(param.alsoNamed?.length ? [`Also read as ${param.alsoNamed.map((name) => `\`${name}\``).join(" or ")} when \`${param.name}\` is absent.`] : []),
    ...(operation.method === "PUT" && param.privacy ? ["Left out of a PUT, it keeps its stored value: a PUT never widens who may see the record."] : []),
  ].join(" ");

/** Methods whose parameters travel in the query string; the others send them in a body. */
const QUERY_METHODS = new Set(["GET", "HEAD", "DELETE"]);

function requestOf(operation: RestOperation): Pick<OperationObject, "parameters" | "requestBody"> {
  const placeholders = new Set([...operation.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!));
  const inPath = operation.params.filter((param) => placeholders.has(readsPlaceholder(param)));
  const rest = operation.params.filter((param) => !inPath.includes(param));
  const parameters: ParameterObject[] = inPath.map((param) => ({
    name: readsPlaceholder(param),
    in: "path",
    required: true,
    description: param.placeholder ? `${param.description} (the parameter \`${param.name}\`)` : param.description,
    schema: paramSchema(param),
  }));
  if (QUERY_METHODS.has(operation.method)) {
    parameters.push(
      ...rest.map(
        (param): ParameterObject => ({
          name: param.name,
          in: "query",
          required: mustBeGiven(param),
          description: describedForMethod(operation, param),
          schema: paramSchema(param),
          // params[mode]=wiki: PHP-style option maps.
          ...(param.format === "map" ? { style: "deepObject", explode: true } : {}),
        }),
      ),
    );
    return parameters.length ? { parameters } : {};
  }
  if (!rest.length) return parameters.length ? { parameters } : {};
  const takesFiles = rest.some((param) => param.type === "file");
  const content: Record<string, MediaTypeObject> = {};
  for (const parser of registeredRequestParsers()) {
    if (takesFiles && !parser.carriesFiles) continue;
    content[parser.mediaType] = { schema: bodySchema(operation, rest) };
  }
  return {
    ...(parameters.length ? { parameters } : {}),
    requestBody: { required: rest.some(mustBeGiven), content },
  };
}

function bodySchema(operation: RestOperation, params: RestParam[]): JsonSchema {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((param) => [param.name, described(paramSchema(param), describedForMethod(operation, param))])),
    required: params.filter(mustBeGiven).map((param) => param.name),
  };
}

/** A schema with the parameter's description before the schema's own note on the format. */
const described = (schema: JsonSchema, description: string): JsonSchema => ({
  ...schema,
  description: schema.description ? `${description} ${schema.description}` : description,
});

/** A parameter's documented type (params.ts reads these, and a little more: "1" for 1, "yes" for true). */
function paramSchema(param: RestParam): JsonSchema {
  const fallback = param.default !== undefined ? { default: param.default } : {};
  if (param.format === "map") return { type: "object", ...fallback };
  if (param.format === "list") return { type: "string", description: "A comma-separated list (or a JSON array).", ...fallback };
  if (param.format === "timestamp") {
    return { type: "string", description: `YYYY-MM-DD HH:mm:ss (UTC) or ISO-8601${param.default === "now" ? '; "now": the time of the request' : ""}.`, ...fallback };
  }
  switch (param.type) {
    case "integer":
      return { type: "integer", ...fallback };
    case "boolean":
      return { type: "boolean", ...fallback };
    case "array":
      return { type: "array", items: {}, ...fallback };
    case "file":
      return { type: "string", format: "binary", contentMediaType: "application/octet-stream" };
    case "string":
      return { type: "string", ...fallback };
  }
}
