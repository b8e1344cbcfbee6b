import { STATUS_CODES } from "node:http";
import type { GraphQLSchema } from "graphql";
import { ERROR_BODY_SCHEMA, ERROR_CODES } from "../common/errors.js";
import { authPaths, describedAreas, securityFor, securitySchemes } from "../auth/api-description.js";
import { SAFE_METHODS } from "../auth/http.js";
import { facadePaths, IGNORED_PARAMETERS_HEADER_COMPONENT, IGNORED_PARAMETERS_HEADER_OBJECT } from "../../rest-facade/openapi.js";
import { IGNORED_PARAMETERS_HEADER } from "../../rest-facade/params.js";
import { AREA_DESCRIPTION_SCHEMA, AREA_INDEX_SCHEMA } from "../../rest-facade/router.js";
import { DEFAULT_VERSION } from "../../rest-facade/versions.js";
import type { HttpMethod, JsonSchema, OperationObject, PathsObject } from "../../rest-facade/openapi-types.js";
import type { RestOperation } from "../../rest-facade/types.js";

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: PathsObject;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, unknown>; headers: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/** Where the document and the docs page are served, below /api. */
export const OPENAPI_PATH = "/openapi.json";
export const DOCS_PATH = "/docs";

/**
 * Error statuses any /api operation may answer, whatever it does: a bad version or body (400), a token
 * that is not valid (401), a CSRF token missing or access refused (403), a version that does not exist
 * (404), a body too large or of a type no parser reads (413/415), rate limits (429) and a database
 * pool that stays busy (503). 409 only where something is written. 500 is never documented: the tests
 * fail on it.
 */
function errorStatuses(method: string, operation?: OperationObject): number[] {
  const statuses = [400, 401, 403, 404, 413, 415, 429, 503];
  if (!SAFE_METHODS.has(method.toUpperCase())) statuses.push(409);
  // Idempotency-Key reused with another request; If-Match of an older version: where the operation takes
  // that header (rest-facade/openapi.ts documents it by the execution core's rules, src/execution/conditions.ts).
  const takes = (header: string) => operation?.parameters?.some((parameter) => "in" in parameter && parameter.in === "header" && parameter.name === header) ?? false;
  if (takes("Idempotency-Key")) statuses.push(422);
  if (takes("If-Match")) statuses.push(412);
  // The database connection broke while a write was committing: its outcome is unknown (src/common/database-errors.ts outcomeUnknown).
  if (!SAFE_METHODS.has(method.toUpperCase())) statuses.push(500);
  for (const status of statuses) if (!ERROR_CODES[status]) throw new Error(`no error code for ${status} (src/common/errors.ts)`);
  return statuses.sort();
}

const errorResponseName = (status: number) => `Error${status}`;

/**
 * The OpenAPI 3.1 document of everything under /api: the facade table (rest-facade/openapi.ts), the
 * token endpoint and the session (src/auth/api-description.ts), the area descriptions and this
 * document itself. Built from those declarations and the GraphQL schema, so it cannot drift from them.
 */
export function buildApiDocument(schema: GraphQLSchema, operations: RestOperation[]): OpenApiDocument {
  const areas = [...new Set(operations.map((operation) => operation.area))];
  const versions = [...new Set(operations.flatMap((operation) => operation.versions))].sort();
  const paths = mergePaths(
    facadePaths({ schema, operations, security: (operation) => securityFor(operation.method, operation.access) }),
    authPaths,
    ownPaths(describedAreas(operations), versions),
  );
  // Every operation also answers the shared error statuses, and a GET 304 to a matching If-None-Match.
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item) as [HttpMethod, OperationObject][]) {
      if (typeof operation !== "object") continue;
      for (const status of errorStatuses(method, operation)) operation.responses[String(status)] ??= { $ref: `#/components/responses/${errorResponseName(status)}` };
      if (method === "get") operation.responses["304"] ??= { description: "Not modified (If-None-Match matched the ETag)", headers: { [IGNORED_PARAMETERS_HEADER]: IGNORED_PARAMETERS_HEADER_OBJECT } };
    }
  }
  const allStatuses = [...new Set([...["GET", "POST", "PUT"].flatMap((method) => errorStatuses(method)), 412, 422])].sort();
  return {
    openapi: "3.1.0",
    info: {
      title: "Hubgraph API",
      version: versions.join(", "),
      description: [
        "The REST API of Hubgraph; everything here is also in the GraphQL API at `/graphql` (GraphiQL in a browser).",
        `Each operation is listed under its version's path (\`/api/v${DEFAULT_VERSION}/wiki/list\`). The same operation answers at the unversioned path`,
        `(\`/api/wiki/list\`), with the version chosen by \`?v=1.0\`, by \`Accept: application/vnd.hubgraph.v1.0+json\`, or, when neither is given, ${DEFAULT_VERSION}.`,
        "The answer's `X-API-Version` header names the version that answered. Errors are `{message, code, errors?}`.",
      ].join(" "),
    },
    servers: [{ url: "/api" }],
    tags: [...areas.map((area) => ({ name: area })), { name: "auth", description: "Tokens and cookie sessions" }, { name: "about", description: "This API's descriptions" }],
    paths,
    components: {
      schemas: { Error: ERROR_BODY_SCHEMA },
      responses: Object.fromEntries(
        allStatuses.map((status) => [
          errorResponseName(status),
          {
            description: STATUS_CODES[status] ?? `Status ${status}`,
            headers: { [IGNORED_PARAMETERS_HEADER]: IGNORED_PARAMETERS_HEADER_OBJECT },
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        ]),
      ),
      headers: { IgnoredParameters: IGNORED_PARAMETERS_HEADER_COMPONENT },
      securitySchemes,
    },
  };
}

function mergePaths(...parts: PathsObject[]): PathsObject {
  const merged: PathsObject = {};
  for (const part of parts) {
    for (const [path, item] of Object.entries(part)) {
      const known = merged[path] ?? {};
      for (const method of Object.keys(item)) if (method in known) throw new Error(`two declarations describe ${method.toUpperCase()} ${path}`);
      // Copies: the shared statuses are added to these objects, and the declarations are module constants.
      merged[path] = { ...known, ...structuredClone(item) };
    }
  }
  return merged;
}

/** The descriptions /api serves about itself. */
function ownPaths(areas: string[], versions: string[]): PathsObject {
  const about = (operationId: string, summary: string, mediaType: string, schema: JsonSchema): OperationObject => ({
    operationId,
    summary,
    tags: ["about"],
    responses: { "200": { description: "OK", content: { [mediaType]: { schema } } } },
    security: [{}],
  });
  const paths: PathsObject = {
    "/": { get: about("getAreas", "the areas of the API", "application/json", AREA_INDEX_SCHEMA) },
    [OPENAPI_PATH]: { get: about("getOpenApi", "this OpenAPI document", "application/json", { type: "object", description: "OpenAPI 3.1" }) },
    [DOCS_PATH]: { get: about("getDocs", "this document as a web page", "text/html", { type: "string" }) },
  };
  for (const area of areas) {
    const operation = about(`describe${area.charAt(0).toUpperCase()}${area.slice(1)}`, `the ${area} API's operations and parameters`, "application/json", AREA_DESCRIPTION_SCHEMA);
    operation.tags = [area];
    operation.parameters = [{ name: "v", in: "query", required: false, description: "The version to describe.", schema: { type: "string", enum: versions, default: DEFAULT_VERSION } }];
    paths[`/${area}`] = { get: operation };
  }
  return paths;
}
