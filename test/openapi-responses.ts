import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { match } from "path-to-regexp";
import { apiDocument } from "../src/api-docs/page.js";
import type { OpenApiDocument } from "../src/api-docs/document.js";
import type { OperationObject, ResponseObject } from "../rest-facade/openapi-types.js";
import { askedVersion } from "../rest-facade/versions.js";
import { versionedPath } from "../rest-facade/openapi.js";
import { restOperations } from "../rest-facade/table.js";
import { IGNORED_PARAMETERS_HEADER } from "../rest-facade/params.js";

const servedVersions = () => [...new Set(restOperations.flatMap((operation) => operation.versions))];

/**
 * The docs cannot lie: every response a test server sends under /api is checked against the OpenAPI
 * document (GET /api/openapi.json) before it leaves: its status must be documented for the operation
 * the request reached, its media type among that status's, and a JSON body must match the schema (ajv,
 * JSON Schema 2020-12, OpenAPI 3.1's dialect). A request no operation takes must be answered 404 or
 * 405 with the contract's error body. What does not fit is collected here, and the test that received
 * it fails (test/setup.ts). Mounted once, in test/server.ts, so it sees every request of every test,
 * whatever client sent it.
 */

const violations: string[] = [];

/** Response headers that must be described wherever they are sent (the facade's X-Ignored-Parameters). */
const DESCRIBED_HEADERS = [IGNORED_PARAMETERS_HEADER];

/** The mismatches found since the last call (test/setup.ts fails the running test on them). */
export function takeResponseViolations(): string[] {
  return violations.splice(0);
}

/** Wraps the app's request handler so each /api response is checked as it is ended. */
export function checkingResponses(handler: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? "/";
    if (!/^\/api(\/|\?|$)/.test(url) || req.method === "OPTIONS") return handler(req, res);
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === "function") return;
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk as Uint8Array));
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      const problem = checkResponse(req, url, res, Buffer.concat(chunks));
      if (problem) violations.push(problem);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    handler(req, res);
  };
}

interface Checker {
  document: OpenApiDocument;
  /** Documented paths, most specific first (fewest placeholders), as the router prefers them. */
  templates: { path: string; placeholders: number; matches: (path: string) => boolean }[];
  validators: Map<string, ValidateFunction>;
  ajv: Ajv2020;
}

let checker: Checker | undefined;

function getChecker(): Checker {
  if (checker) return checker;
  const document = apiDocument();
  // The document is not itself a schema, but its schemas' $refs (#/components/...) resolve within it.
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addSchema(document as object, "openapi.json");
  const templates = Object.keys(document.paths)
    .map((path) => {
      const matcher = match(path.replace(/\{(\w+)\}/g, ":$1"), { decode: false });
      return { path, placeholders: (path.match(/\{/g) ?? []).length, matches: (candidate: string) => Boolean(matcher(candidate)) };
    })
    .sort((a, b) => a.placeholders - b.placeholders);
  checker = { document, templates, validators: new Map(), ajv };
  return checker;
}

/** The operation for this method at this path, looked up as the router does: the most specific paths only. */
function findOperation(path: string, method: string): { path: string; operation: OperationObject } | null {
  const { document, templates } = getChecker();
  const matching = templates.filter((template) => template.matches(path));
  if (!matching.length) return null;
  const fewest = matching[0]!.placeholders;
  for (const template of matching.filter((candidate) => candidate.placeholders === fewest)) {
    const operation = document.paths[template.path]![method as "get"];
    if (operation) return { path: template.path, operation };
  }
  return null;
}

const pointer = (...segments: string[]) => "#" + segments.map((segment) => "/" + segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("");

function validatorAt(ref: string): ValidateFunction {
  const { ajv, validators } = getChecker();
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: `openapi.json${ref}` })));
  return validate;
}

function checkResponse(req: IncomingMessage, url: string, res: ServerResponse, body: Buffer): string | null {
  const { document } = getChecker();
  const method = req.method === "HEAD" ? "get" : req.method!.toLowerCase();
  const status = res.statusCode;
  const apiPath = new URL(url, "http://localhost").pathname.replace(/^\/api/, "") || "/";
  const request = `${req.method} ${url} → ${status}`;
  // The version that answered is in X-API-Version; the operation is documented under that version's path,
  // or unversioned (protocol endpoints and the descriptions).
  const { path } = askedVersion(apiPath, {}, undefined);
  const version = String(res.getHeader("x-api-version") ?? "");
  // A request refused before its version was chosen (a malformed `v`, answered as the default version) is
  // described by whichever version's operation is at the path (the forum user-category links are 2.0 only).
  const found =
    findOperation(versionedPath(version, path), method) ??
    findOperation(path, method) ??
    servedVersions().map((served) => findOperation(versionedPath(served, path), method)).find(Boolean);
  const mediaType = String(res.getHeader("content-type") ?? "").split(";")[0]!.trim();
  const text = body.toString("utf8");

  if (!found) {
    // No documented operation takes this request: only "not here" answers, with the contract's error body.
    if (status !== 404 && status !== 405) return `${request}: no operation in the OpenAPI document takes ${req.method} /api${path} (v${version}), yet it answered ${status}`;
    return jsonProblem(request, mediaType, text, pointer("components", "schemas", "Error"));
  }
  const where = `${found.path} ${method.toUpperCase()}`;
  let response = found.operation.responses[String(status)];
  let responsePointer = pointer("paths", found.path, method, "responses", String(status));
  if (!response) return `${request}: status ${status} is not documented for ${where} (documented: ${Object.keys(found.operation.responses).join(", ")}); body ${text.slice(0, 300)}`;
  if ("$ref" in response && typeof response.$ref === "string") {
    responsePointer = response.$ref;
    response = document.components.responses[response.$ref.split("/").pop()!] as ResponseObject;
  }
  // Headers the document describes for some answers only: an answer carrying one must be such an answer.
  for (const header of DESCRIBED_HEADERS) {
    if (res.getHeader(header) === undefined) continue;
    const described = Object.keys((response as ResponseObject).headers ?? {}).some((name) => name.toLowerCase() === header.toLowerCase());
    if (!described) return `${request}: it sent the header ${header}, which ${where} does not describe for ${status}`;
  }
  const content = (response as ResponseObject).content;
  if (!content) return body.length && req.method !== "HEAD" ? `${request}: ${where} documents no body for ${status}, yet it sent ${text.slice(0, 300)}` : null;
  if (req.method === "HEAD" || status === 304) return null;
  const documented = content[mediaType] ? mediaType : content["*/*"] ? "*/*" : null;
  if (!documented) return `${request}: ${where} documents ${Object.keys(content).join(", ")} for ${status}, not "${mediaType}"`;
  if (mediaType !== "application/json") return null;
  return jsonProblem(request, mediaType, text, `${responsePointer}/content/${documented.replace(/~/g, "~0").replace(/\//g, "~1")}/schema`);
}

function jsonProblem(request: string, mediaType: string, text: string, schemaRef: string): string | null {
  if (mediaType !== "application/json") return `${request}: the body is ${mediaType || "untyped"}, not application/json`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${request}: the body is not JSON: ${text.slice(0, 300)}`;
  }
  const validate = validatorAt(schemaRef);
  if (validate(value)) return null;
  const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || "/"} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ""}`);
  return `${request}: the body does not match ${decodeURIComponent(schemaRef)}: ${errors.join("; ")}; body ${text.slice(0, 500)}`;
}
