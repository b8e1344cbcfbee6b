import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import { parse, print, type DocumentNode, type GraphQLError, type GraphQLSchema } from "graphql";
import { match } from "path-to-regexp";
import { ApiError, badInput, notFound, unauthenticated, type ParameterProblem } from "../src/common/errors.js";
import { illFormedTextPath } from "../src/common/json-bounds.js";
import type { Config } from "../src/config.js";
import { fileNotAccepted } from "../src/http/multipart.js";
import { answerTooLarge, assertWithinQueryLimits, QUERY_LIMITS } from "../src/graphql/limits.js";
import type { ExecutionCore } from "../src/execution/core.js";
import { runsMutation } from "../src/execution/conditions.js";
import { compileNow } from "../src/graphql/compiled.js";
import { assertCsrfToken } from "../src/auth/http.js";
import { checkFacadeTable, readsPlaceholder } from "./check.js";
import { IGNORED_PARAMETERS_HEADER, mustBeGiven, readParams } from "./params.js";
import { numbersToEnumNames, numericEnumVariables } from "./enums.js";
import { isFieldsParam, project, requestedKeys, selectedKeys } from "./fields-param.js";
import { render, renderPlan } from "./render.js";
import { readBody } from "./request-parsers.js";
import { responseKind, type ResponseKind } from "./responses.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";
import { DEFAULT_VERSION, VERSION_PARAMETERS } from "./versions.js";

export interface RestFacadeOptions {
  schema: GraphQLSchema;
  /** The facade table. */
  operations: RestOperation[];
  /** The execution core the rows' documents run through, as /graphql's do. */
  core: ExecutionCore;
  config: Config;
  /** Where unexpected errors are reported. */
  log(line: string, error?: unknown): void;
  /** BODY_LIMIT, in bytes. */
  bodyLimit: number;
  /** False for an area whose `GET /api/<area>` is another endpoint (the session's): no description, not in the index. */
  describesArea?(area: string): boolean;
}

export interface RestFacade {
  /**
   * Reads every /api body with the registered request parsers (request-parsers.ts). Mounted before the
   * protocol routes (token endpoint, session), which read the same bodies; keeps file parts only for
   * rows that declare file parameters.
   */
  readBody: RequestHandler;
  /** The rows, and the area descriptions. */
  router: Router;
}

interface Route {
  operation: RestOperation;
  matches: (path: string) => Record<string, string> | null;
  plan: ReturnType<typeof renderPlan>;
  /** Path placeholder → the parameter it feeds. */
  pathParams: Map<string, string>;
  fileParams: Set<string>;
  respond: ResponseKind;
  enums: ReturnType<typeof numericEnumVariables>;
  /** The row's `fields` parameter and the keys it may name (rest-facade/fields-param.ts); null: none. */
  projection: { param: RestParam; selectable: string[] } | null;
  /** The parameters that feed GraphQL variables (all but a `fields` one). */
  variableParams: RestParam[];
  /**
   * The row runs a mutation: a GET that has effects (GET /plugins/trigger) is treated as an unsafe method —
   * a cookie caller echoes the CSRF token, and the answer is never stored (`Cache-Control: no-store`).
   */
  effectful: boolean;
  /** The row's document, parsed, checked and compiled once, here: the core runs it as it is. */
  document: DocumentNode;
  /** Its text, as the chain's parse is called with it (src/execution/core.ts runTrusted). */
  source: string;
  /** How many placeholders its path has: the fewer, the more specific. */
  placeholders: number;
  /** Every name the row reads a value under (its parameters, their other names, `orGiven` names) and the version selectors. */
  reads: ReadonlySet<string>;
  /**
   * Names this row does not read that another version of the same operation (same method and path) does,
   * with those versions: sent here, they are 400 naming the version that has them, not silently dropped.
   */
  otherVersions: ReadonlyMap<string, string[]>;
}

/**
 * The rows prepared for a schema (checked, compiled, their render plans and matchers made), kept per schema
 * and table: they depend on nothing else, so every app built in one process from the same schema and table
 * shares them (the test suite builds one per test file; preparing the rows was ≈130 ms of each start).
 */
const preparedRoutes = new WeakMap<GraphQLSchema, WeakMap<readonly RestOperation[], Route[]>>();

function routesOf(schema: GraphQLSchema, operations: readonly RestOperation[]): Route[] {
  let bySchema = preparedRoutes.get(schema);
  if (!bySchema) preparedRoutes.set(schema, (bySchema = new WeakMap()));
  let routes = bySchema.get(operations);
  if (!routes) bySchema.set(operations, (routes = prepareRoutes(schema, operations)));
  return routes;
}

function prepareRoutes(schema: GraphQLSchema, operations: readonly RestOperation[]): Route[] {
  checkFacadeTable(schema, [...operations]);
  const routes: Route[] = operations.map((operation) => {
    assertWithinQueryLimits(schema, operation.document, `facade row ${operation.method} ${operation.path}`);

    const matcher = match(operation.path.replace(/\{(\w+)\}/g, ":$1"), { decode: decodePathSegment });
    return {
      operation,
      matches: (path: string) => {
        const result = matcher(path);
        return result ? (result.params as Record<string, string>) : null;
      },
      plan: renderPlan(schema, operation.document),
      ...compiledRow(schema, operation.document),
      pathParams: new Map(operation.params.map((param) => [readsPlaceholder(param), param.name])),
      fileParams: new Set(operation.params.filter((param) => param.type === "file").map((param) => param.name)),
      respond: responseKind(operation.response.kind)!,
      enums: numericEnumVariables(schema, operation.document),
      projection: projectionOf(schema, operation),
      variableParams: operation.params.filter((param) => !isFieldsParam(param)),
      effectful: runsMutation(operation.document),
      placeholders: placeholders(operation.path),
      reads: readNames(operation),
      otherVersions: new Map(),
    };
  });
  for (const route of routes) {
    const { method, path } = route.operation;
    const elsewhere = new Map<string, string[]>();
    for (const other of routes) {
      if (other === route || other.operation.method !== method || other.operation.path !== path) continue;
      for (const name of other.reads) if (!route.reads.has(name)) elsewhere.set(name, [...(elsewhere.get(name) ?? []), ...other.operation.versions]);
    }
    route.otherVersions = elsewhere;
  }
  return routes;
}

/**
 * Serves every row of the facade table under /api. The table is checked against the schema once, here
 * (checkFacadeTable: the server does not start with a broken row); a request only coerces parameters,
 * executes the prepared document and renders the result.
 */
export function restFacade({ schema, operations, core, config, log, bodyLimit, describesArea = () => true }: RestFacadeOptions): RestFacade {
  const routes = routesOf(schema, operations);
  const areas = [...new Set(operations.map((operation) => operation.area))].filter(describesArea);

  // Rows by their path's first segment (lower-cased: paths match regardless of case) and number of segments,
  // so a request tries the matchers of the rows that can match it only; rows whose path starts with a
  // placeholder are tried for every first segment. A placeholder is one whole segment (path-to-regexp's
  // `:name`), and one trailing slash is allowed, so the count decides as the matcher would.
  const shapeOf = (path: string) => {
    const segments = (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path).split("/");
    return { first: segments[1]?.toLowerCase() ?? "", count: segments.length - 1 };
  };
  const byShape = new Map<string, Route[]>();
  const anyFirst = new Map<number, Route[]>();
  for (const route of routes) {
    const { first, count } = shapeOf(route.operation.path);
    if (route.operation.path.startsWith("/{")) anyFirst.set(count, [...(anyFirst.get(count) ?? []), route]);
    else byShape.set(`${count} ${first}`, [...(byShape.get(`${count} ${first}`) ?? []), route]);
  }
  const none: Route[] = [];

  /** The rows whose path matches; only the most specific paths count: /wiki/list is never /wiki/{id} with id "list". */
  const routesAt = (path: string): Match[] => {
    const { first, count } = shapeOf(path);
    const matched: Match[] = [];
    let fewest = Infinity;
    for (const candidates of [byShape.get(`${count} ${first}`) ?? none, anyFirst.get(count) ?? none]) {
      for (const route of candidates) {
        const params = route.matches(path);
        if (!params) continue;
        matched.push({ route, params });
        fewest = Math.min(fewest, route.placeholders);
      }
    }
    return matched.length > 1 ? matched.filter(({ route }) => route.placeholders === fewest) : matched;
  };

  const noFiles: ReadonlySet<string> = new Set();
  const takesFiles = routes.some((route) => route.fileParams.size);
  /** File parts are kept for the file parameters of the rows (any version) that may answer this request. */
  const fileParamsFor = (req: Request): ReadonlySet<string> => {
    if (!takesFiles) return noFiles;
    return new Set((rowsOfMethodAt(req) ?? []).flatMap(({ route }) => [...route.fileParams]));
  };
  /** The rows (any version) of the request's method at its path, for the body reader; null for a malformed path, which the router answers. */
  const rowsOfMethodAt = (req: Request): Match[] | null => {
    const method = req.method === "HEAD" ? "GET" : req.method;
    try {
      return routesAt(req.path).filter(({ route }) => route.operation.method === method);
    } catch {
      return null;
    }
  };

  const router = express.Router();

  router.get("/", (_req, res) => {
    res.json({ areas: areas.map((area) => ({ name: area, uri: `/api/${area}` })) });
  });

  router.use(async (req: Request, res: Response, next) => {
    try {
      // selectVersion() (mounted on /api) has read the version and stripped any /v1.x prefix.
      const asked = (res.locals.askedVersion as string | null | undefined) ?? null;
      const path = req.path;
      const matching = routesAt(path);
      const method = req.method === "HEAD" ? "GET" : req.method;
      const area = /^\/([\w-]+)\/?$/.exec(path)?.[1];
      if (method === "GET" && area && areas.includes(area) && !matching.some(({ route }) => route.operation.method === "GET")) {
        const described = operations.filter((operation) => operation.area === area && (!asked || operation.versions.includes(asked)));
        if (!described.length) throw notFound(`Version ${asked} of the ${area} API does not exist.`);
        res.locals.operation = `GET /api/${area}`;
        return void res.json(describeArea(area, asked ?? DEFAULT_VERSION, described));
      }
      if (!matching.length) throw notFound(noOperationAt(req.method, path, routes));
      const { route, params, version } = chooseRoute(matching, method, asked, req, res);
      res.set("X-API-Version", version);
      res.locals.operation = `${route.operation.method} /api${route.operation.path}`;
      if (route.effectful) {
        assertCsrfToken(req);
        res.set("Cache-Control", "no-store");
      }
      // Anonymous callers of a row that needs a user are refused before any parameter is looked at: a
      // stranger is not told how to shape a call it may not make (contract, "Parameters").
      if (refusesAnonymous(route.operation, Boolean(req.viewer?.user), config)) throw unauthenticated();
      // Only then is the text looked at (docs/decisions.md, "Anonymous writes").
      refuseIllFormedText(req);
      const body = isObject(req.body) ? req.body : {};
      const strayFile = Object.keys(body).find((name) => holdsFile(body[name]) && !route.fileParams.has(name));
      // Another version of the row may take files (the body was read for all of them); this one does not take this part.
      if (strayFile !== undefined) throw fileNotAccepted(strayFile);
      const fromPath = Object.fromEntries(Object.entries(params).map(([placeholder, value]) => [route.pathParams.get(placeholder)!, value]));
      const values = { ...(req.query as Record<string, unknown>), ...body, ...fromPath };
      const { ignored, problems: versionProblems } = unreadNames(route, [...Object.keys(req.query as object), ...Object.keys(body)]);
      if (ignored.length) res.set(IGNORED_PARAMETERS_HEADER, ignoredHeaderValue(ignored));
      const { variables, problems } = rowVariables(route.operation, route.variableParams, route.enums, values);
      problems.unshift(...versionProblems);
      const kept = route.projection ? requestedKeys(route.projection.param, values[route.projection.param.name], route.projection.selectable) : null;
      if (kept && "problem" in kept) problems.push(kept.problem);
      if (problems.length) throw invalidParameters(problems);

      // The core sets the answer's ETag (a record's version, which If-Match on its writes checks) and
      // answers a retried Idempotency-Key with the first result (src/execution/conditions.ts).
      const result = await core.runTrusted({ req, res, document: route.document, source: route.source, variables, row: `${res.locals.operation as string} ${version}` });
      if (result.errors?.length) throw restError(result.errors[0]!, route.operation, log);
      const { operation } = route;
      const data = result.data as Record<string, unknown>;
      const rendered = render(data[operation.resultField], route.plan[operation.resultField] ?? {});
      route.respond.send(withinAnswerLimit(res), operation as never, kept && "keys" in kept ? project(rendered, kept.keys) : rendered);
    } catch (error) {
      next(error);
    }
  });
  /**
   * Whether the row this request reaches answers its caller 401 before reading anything: then its body is
   * not read at all (its type, size or syntax are not the answer, the 401 is: a stranger is not told how to
   * shape a write, nor made to be read).
   */
  const refusedBeforeReading = (req: Request, res: Response): boolean => {
    const forMethod = rowsOfMethodAt(req);
    if (!forMethod?.length) return false;
    // The row the router will choose (chooseRoute): the same version, so the two never disagree.
    const row = rowOfVersion(forMethod, (res.locals.askedVersion as string | null | undefined) ?? null).found;
    return Boolean(row && refusesAnonymous(row.route.operation, Boolean(req.viewer?.user), config));
  };
  return { readBody: readBody({ limit: bodyLimit, fileParams: fileParamsFor, refusedBeforeReading }), router };
}

type Match = { route: Route; params: Record<string, string> | null };

/** How the header's value is written: the names, comma-separated, each percent-encoded when not plain (at most 50, 2,000 characters). */
const ignoredHeaderValue = (names: string[]) => {
  const listed = names.slice(0, 50).map((name) => encodeURIComponent(name.slice(0, 100))).join(", ");
  return listed.length > 2000 ? `${listed.slice(0, 2000).replace(/,[^,]*$/, "")}, ...` : listed;
};

/** The names a row reads a value under, and the version selectors every request may carry. */
function readNames(operation: RestOperation): Set<string> {
  return new Set([...VERSION_PARAMETERS, ...operation.params.flatMap((param) => [param.name, ...(param.alsoNamed ?? []), ...(param.orGiven ?? [])])]);
}

/**
 * The names a request sent that the row does not read: those another version of the operation reads are
 * problems (400 naming the name and the versions that have it: a client that asks the wrong version must
 * not get an unfiltered answer), the others are ignored and listed in X-Ignored-Parameters (real clients
 * send extras; a misspelt name shows there).
 */
function unreadNames(route: Route, sent: string[]): { ignored: string[]; problems: ParameterProblem[] } {
  const ignored: string[] = [];
  const problems: ParameterProblem[] = [];
  const { method, path, versions } = route.operation;
  for (const name of new Set(sent)) {
    if (route.reads.has(name)) continue;
    const elsewhere = route.otherVersions.get(name);
    if (!elsewhere) ignored.push(name);
    else {
      const list = [...new Set(elsewhere)].sort();
      problems.push({
        parameter: name,
        message: `is a parameter of version ${list.join(" and ")} of ${method} /api${path}, not of version ${versions.join(" and ")}: ask for ${list.length === 1 ? "it" : "one of them"} (?v=${list[0]}, or the path /api/v${list[0]}${path})`,
      });
    }
  }
  return { ignored, problems };
}

/** The GraphQL variables a row sends for the request's values (path, query and body merged), or the problems found. */
export function rowVariables(operation: RestOperation, variableParams: RestParam[], enums: ReturnType<typeof numericEnumVariables>, values: Record<string, unknown>) {
  const { variables, problems } = readParams(variableParams, values, { partial: operation.partial, replacing: operation.method === "PUT" });
  problems.push(...numbersToEnumNames(enums, operation.params, variables));
  return { variables, problems };
}

/** Whether the row answers this caller 401 before reading anything: it needs a user, and the caller is anonymous. */
function refusesAnonymous(operation: RestOperation, signedIn: boolean, config: Config): boolean {
  if (operation.access === "anyone" || signedIn) return false;
  return !operation.opensToAnonymous?.(config);
}

/**
 * 400 naming the parameter when a query or body value (or key) holds a lone UTF-16 surrogate, such as
 * JSON's "\ud800": such text cannot be encoded as UTF-8 or stored, and a client that sends it has a bug it
 * should hear about, so it is refused rather than silently repaired (docs/decisions.md).
 */
function refuseIllFormedText(req: Request): void {
  const path = illFormedTextPath(req.query) ?? illFormedTextPath(req.body);
  if (path !== null) throw badInput(path || "body", "must be well-formed Unicode text (no lone UTF-16 surrogates)");
}

function projectionOf(schema: GraphQLSchema, operation: RestOperation): Route["projection"] {
  const param = operation.params.find(isFieldsParam);
  return param ? { param, selectable: selectedKeys(schema, operation.document, operation.resultField) } : null;
}

/**
 * The 404 for a path no row serves. When rows differ from it in one fixed segment only, it says which
 * segment and what the rows take there: a group plugin nobody registered (`/groups/7/forum/list`) is told
 * the plugins there are, read from the rows alone.
 */
function noOperationAt(method: string, path: string, routes: Route[]): string {
  const asked = path.replace(/\/$/, "").split("/");
  // A first segment no row has: not an area at all. Every area is listed (the rows' first segments), not
  // only those whose paths happen to have as many segments as the one asked.
  const areas = [...new Set(routes.map(({ operation }) => operation.path.split("/")[1]!.toLowerCase()))].filter((segment) => !segment.startsWith("{")).sort();
  if (asked[1] !== undefined && !areas.includes(asked[1].toLowerCase())) {
    return `No API operation at ${method} /api${path}: "${asked[1].slice(0, 100)}" is not an area of the API (areas: ${areas.join(", ")}).`;
  }
  const taken = new Map<number, Set<string>>();
  for (const { operation } of routes) {
    const template = operation.path.split("/");
    if (template.length !== asked.length) continue;
    const differing = template.flatMap((segment, index) => (segment.startsWith("{") || segment === asked[index] ? [] : [index]));
    if (differing.length !== 1) continue;
    const index = differing[0]!;
    taken.set(index, (taken.get(index) ?? new Set()).add(template[index]!));
  }
  const general = `No API operation at ${method} /api${path}.`;
  if (taken.size !== 1) return general;
  const [index, segments] = [...taken][0]!;
  return `No API operation at ${method} /api${path}: "${asked[index]!.slice(0, 100)}" is not one of ${[...segments].sort().join(", ")}.`;
}

/** The row for this method and version among the rows whose path matches (some do: noOperationAt answers none): 405 or 404-for-version otherwise. */
function chooseRoute(matching: Match[], method: string, asked: string | null, req: Request, res: Response) {
  const forMethod = matching.filter(({ route }) => route.operation.method === method);
  if (!forMethod.length) {
    const allowed = [...new Set(matching.map(({ route }) => route.operation.method))];
    res.set("Allow", allowed.join(", "));
    throw new ApiError(405, `${req.method} is not allowed on /api${req.path}; use ${allowed.join(" or ")}.`);
  }
  const { version, found } = rowOfVersion(forMethod, asked);
  if (!found) {
    const available = [...new Set(forMethod.flatMap(({ route }) => route.operation.versions))].join(", ");
    throw notFound(`Version ${version} of ${method} /api${req.path} does not exist (available: ${available}).`);
  }
  return { route: found.route, params: found.params ?? {}, version };
}

/** Among the rows of one method, the one of the version asked: no version asked is 1.0, or the only version of an operation that has no 1.0 (contract). */
function rowOfVersion(forMethod: Match[], asked: string | null): { version: string; found: Match | undefined } {
  const version =
    asked ?? (forMethod.some(({ route }) => route.operation.versions.includes(DEFAULT_VERSION)) ? DEFAULT_VERSION : forMethod[0]!.route.operation.versions[0]!);
  return { version, found: forMethod.find(({ route }) => route.operation.versions.includes(version)) };
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, "The path holds a malformed percent-encoding.", [{ parameter: "path", message: "is not valid percent-encoding" }]);
  }
}

const placeholders = (path: string) => (path.match(/\{/g) ?? []).length;
const holdsFile = (value: unknown) => value instanceof File || (Array.isArray(value) && value.some((item) => item instanceof File));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function invalidParameters(problems: ParameterProblem[]): ApiError {
  const first = problems[0]!;
  const message =
    problems.length === 1
      ? `Invalid parameter "${first.parameter}": ${first.message}`
      : `Invalid parameters: ${problems.map((problem) => `"${problem.parameter}" ${problem.message}`).join("; ")}`;
  return new ApiError(400, message, problems);
}

/**
 * The contract's REST error for the first error of a row's result, as the core's mask left it: a
 * service's ApiError, or a request error the chain made (a variable's value, a limit: 400 or its own
 * status); parameters named the REST way. A field error that is neither is the server's fault.
 */
function restError(error: GraphQLError, operation: RestOperation, log: RestFacadeOptions["log"]): ApiError {
  const found = error instanceof ApiError ? error : error.originalError instanceof ApiError ? error.originalError : null;
  if (!found && error.path) {
    log(`unexpected error in ${operation.method} ${operation.path}`, error);
    return new ApiError(500, "Internal server error.");
  }
  const failure = found ?? new ApiError((error.extensions.http as { status?: number } | undefined)?.status ?? 400, error.message, (error.extensions.errors as ParameterProblem[] | undefined) ?? []);
  if (!failure.problems.length) return failure;
  const renamed = failure.problems.map((problem) => ({ ...problem, parameter: restName(problem.parameter, operation) }));
  let message = failure.message;
  for (const [index, problem] of failure.problems.entries()) message = message.replace(`"${problem.parameter}"`, `"${renamed[index]!.parameter}"`);
  const answer = new ApiError(failure.status, message, renamed);
  Object.assign(answer.extensions, failure.extensions.http ? { http: failure.extensions.http } : {});
  return answer;
}

/** Service problems name GraphQL input fields (`scopeId`, `tags.1`); REST callers get the row's name. */
function restName(parameter: string, operation: RestOperation): string {
  const [field, ...rest] = parameter.replace(/^input\./, "").split(".");
  const param = operation.params.find((candidate) => candidate.variable.replace(/^input\./, "") === field);
  return param ? [param.name, ...rest].join(".") : parameter;
}

/** `GET /api`'s answer as JSON Schema (the OpenAPI document). */
export const AREA_INDEX_SCHEMA = {
  type: "object",
  properties: {
    areas: {
      type: "array",
      items: { type: "object", properties: { name: { type: "string" }, uri: { type: "string" } }, required: ["name", "uri"], additionalProperties: false },
    },
  },
  required: ["areas"],
  additionalProperties: false,
};

/** `describeArea`'s answer as JSON Schema (the OpenAPI document). */
export const AREA_DESCRIPTION_SCHEMA = {
  type: "object",
  properties: {
    component: { type: "string" },
    version: { type: "string" },
    tasks: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          method: { type: "string" },
          uri: { type: "string" },
          versions: { type: "array", items: { type: "string" } },
          access: { type: "string" },
          status: { type: "integer" },
          parameters: {
            type: "array",
            items: {
              type: "object",
              properties: {
                name: { type: "string" },
                type: { type: "string" },
                required: { type: "boolean" },
                default: { type: ["string", "integer", "boolean"] },
                description: { type: "string" },
              },
              required: ["name", "type", "required", "description"],
              additionalProperties: false,
            },
          },
        },
        required: ["name", "method", "uri", "versions", "access", "status", "parameters"],
        additionalProperties: false,
      },
    },
  },
  required: ["component", "version", "tasks"],
  additionalProperties: false,
};

function describeArea(area: string, version: string, operations: RestOperation[]) {
  return {
    component: area,
    version,
    tasks: operations
      .map((operation) => ({
        name: operation.task,
        method: operation.method,
        uri: `/api${operation.path}`,
        versions: operation.versions,
        access: operation.access,
        status: operation.status,
        // Required with a default: it may be left out (mustBeGiven), as OpenAPI says too.
        parameters: operation.params.map((param) => ({
          name: param.name,
          type: param.type,
          required: mustBeGiven(param),
          ...(param.default !== undefined ? { default: param.default } : {}),
          description: param.description,
        })),
      })),
  };
}

/**
 * The response, whose JSON body is written once and refused past the answer limit (QUERY_LIMITS.maxResponseBytes,
 * as a GraphQL answer is: src/graphql/limits.ts): 400 asking for smaller pages, without the record's ETag.
 */
function withinAnswerLimit(res: Response): Response {
  res.json = (body: unknown) => {
    const text = JSON.stringify(body);
    if (text.length > QUERY_LIMITS.maxResponseBytes) {
      res.removeHeader("ETag");
      throw new ApiError(400, answerTooLarge().errors![0]!.message);
    }
    if (!res.get("Content-Type")) res.set("Content-Type", "application/json");
    return res.send(text);
  };
  return res;
}

/**
 * A row's document as the core runs it: its printed text, parsed again so the locations of its errors point
 * into that text (which the chain's parse is called with, and yoga's parse cache may keep under it), and
 * compiled now (graphql-jit), so its first request runs compiled too; the same DocumentNode finds it.
 */
function compiledRow(schema: GraphQLSchema, template: DocumentNode): { document: DocumentNode; source: string } {
  const source = print(template);
  const document = parse(source);
  compileNow(schema, document);
  return { document, source };
}
