import type { DocumentNode } from "graphql";
import type { Config } from "../src/config.js";

/**
 * Parameter types as the API document names them, plus `file`: a part of a multipart/form-data body,
 * sent to GraphQL as a WHATWG `File` (a variable of the `File` scalar).
 */
export type ParamType = "integer" | "string" | "boolean" | "array" | "file";

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
   * `map`: a PHP-style "array" of options, sent as a JSON object (`params[a]=b`, or a JSON object);
   * `fields`: the keys of the answered record(s) to keep (rest-facade/fields-param.ts, `fieldsParam`): fed
   * to no variable (`variable` is empty), the facade projects the rendered answer.
   */
  format?: "timestamp" | "list" | "map" | "fields";
  /**
   * The path placeholder that feeds this parameter, when it is not named like the parameter: the API
   * document's `GET /forum/{thread}` documents its identifier as `id` (`placeholder: "thread"`).
   */
  placeholder?: string;
  /**
   * A required parameter may be left out when one of these parameters is given instead: the names an
   * original client sends (forum user-category links: `userId`, `categoriesIds[]` for `user_id`, `category_id`).
   */
  orGiven?: string[];
  /**
   * An empty value (or JSON `null`) clears the field: it is sent to GraphQL as null. Unset: a timestamp
   * that is optional and has no documented default clears (e.g. publish_down: no end), nothing else does.
   * Derived PATCH rows set it from their PUT row, whose defaults they drop (see clearsWhenEmpty).
   */
  clears?: boolean;
  /**
   * The parameter says who may see, find, join or identify the record (access levels, scope, scope id,
   * discoverability, join policy, anonymity, recipients). A PUT that leaves it out keeps the stored value
   * instead of taking the default, which would widen it (the contract: PUT never loosens privacy).
   */
  privacy?: boolean;
  /** A `fields` parameter's keys kept in every answer whatever is asked (a group's gidNumber). */
  alwaysKept?: string[];
  /** Other names the value is read under when its own is absent (activity's `crated_by` also as `created_by`). */
  alsoNamed?: readonly string[];
}

/**
 * How the GraphQL result becomes the REST response: each kind with the options its rows give. A kind
 * registered in its own file (see responses.ts) adds itself here by declaration merging:
 * `declare module "<path>/types.js" { interface ResponseKinds { file: { disposition: "inline" | "attachment" } } }`.
 */
export interface ResponseKinds {
  /** The result field as the body. */
  record: {};
  /** `{[key]: items, total, ...extra}`, the contract's list wrapper. */
  list: { key: string; extra?: Record<string, unknown> };
  /** No body (204). */
  empty: {};
}

export type RestResponse = { [Kind in keyof ResponseKinds]: { kind: Kind } & ResponseKinds[Kind] }[keyof ResponseKinds];

/** One documented operation: a row of the facade table. */
export interface RestOperation {
  /** Area (first path segment), e.g. `wiki`. */
  area: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
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
  /**
   * A partial update, derived from a PUT row (table.ts): parameters the caller leaves out keep their
   * values, so no default applies, and JSON `null` is refused unless the parameter `clears`.
   */
  partial?: boolean;
  /**
   * Who may call it: the descriptions and OpenAPI say it, and a row that needs a user answers an anonymous
   * caller 401 before reading its parameters (router.ts, `refusesAnonymous`). The services enforce it on
   * their own all the same (GraphQL, and callers signed in who may not); rest-facade/table.test.ts holds every
   * row's declaration to what its service answers an anonymous caller.
   */
  access: "anyone" | "signed-in user" | "administrator";
  /**
   * Whether an anonymous caller may reach the service although `access` is not "anyone", given the
   * server's configuration: the service's own rule, imported (POST /members: `anyoneMayCreateAccounts`).
   * Otherwise a row whose access is not "anyone" answers an anonymous caller 401 before any parameter is
   * checked (router.ts, `refusesAnonymous`): a stranger is not told how to shape a call it may not make.
   */
  opensToAnonymous?(config: Config): boolean;
  /**
   * The tests' declaration (`src/<folder>/testing.ts` or `<name>.testing.ts`, test/areas.ts) that transcribes
   * this row and makes its records, when it is not the row's area: the group plugin rows live under
   * /groups, and are documented by `group-plugins` (src/groups/plugins.testing.ts).
   */
  documentedIn?: string;
}
