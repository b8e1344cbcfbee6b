import type { DocumentNode } from "graphql";

/** Parameter types exactly as the API document names them. */
export type ParamType = "integer" | "string" | "boolean" | "array";

export interface RestParam {
  /** REST name, as documented (e.g. `scope_id`). */
  name: string;
  type: ParamType;
  required: boolean;
  /** The documented default. `"now"` is applied by the service at write time, never sent by the facade. */
  default?: string | number | boolean;
  description: string;
  /** Where the value goes among the GraphQL variables, dot-separated (e.g. `input.scopeId`). */
  variable: string;
  /**
   * How a value of the documented type is read, beyond the type itself:
   * `timestamp`: `YYYY-MM-DD HH:mm:ss` (UTC) or ISO-8601, sent to GraphQL as ISO-8601;
   * `list`: a string holding a comma-separated list, sent as a list of strings;
   * `map`: a PHP-style "array" of options, sent as a JSON object (`params[a]=b`, or a JSON object).
   */
  format?: "timestamp" | "list" | "map";
}

/** How the GraphQL result becomes the REST body. */
export type RestResponse =
  | { kind: "record" }
  | { kind: "list"; key: string; extra?: Record<string, unknown> }
  | { kind: "empty" };

/** One documented operation: a row of the facade table. */
export interface RestOperation {
  /** Area (first path segment), e.g. `wiki`. */
  area: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path below /api with `{placeholders}`, as in the API document. */
  path: string;
  /** API versions this row answers. */
  versions: string[];
  /** The document's task description. */
  task: string;
  params: RestParam[];
  /** Named GraphQL operation run in-process (a typed document from rest-facade/generated). */
  document: DocumentNode;
  /** The root field of the result that holds the record or list. */
  resultField: string;
  response: RestResponse;
  /** Success status. */
  status: 200 | 201 | 204;
  /** Who may call it, for the descriptions; the services enforce it. */
  access: "anyone" | "signed-in user" | "administrator";
}
