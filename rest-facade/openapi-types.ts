/**
 * The parts of OpenAPI 3.1 this project writes, loosely typed: JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect) and the objects around it. Kept loose on purpose: the document is checked by a maintained
 * OpenAPI validator in the tests (test/openapi.test.ts), not by these types.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  description?: string;
  default?: unknown;
  pattern?: string;
  format?: string;
  $ref?: string;
  [keyword: string]: unknown;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  encoding?: Record<string, unknown>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | { $ref: string }>;
  security?: Record<string, string[]>[];
}

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

export type PathItemObject = { summary?: string; description?: string } & { [method in HttpMethod]?: OperationObject };

export type PathsObject = Record<string, PathItemObject>;
