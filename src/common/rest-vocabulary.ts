/**
 * The REST vocabulary an area's declaration speaks (src/common/area-declaration.ts, fields.ts): a parameter,
 * its type, the kinds of answer a row makes, and the rows an area declares (`RestRow`, `ListRow`). The kit
 * declares it so that it imports nothing from rest-facade/; the facade (rest-facade/types.ts, its rows, its
 * router) takes it from here.
 */

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
 * registered in its own file (see rest-facade/responses.ts) adds itself here by declaration merging:
 * `declare module "<path>/src/common/rest-vocabulary.js" { interface ResponseKinds { file: { disposition: "inline" | "attachment" } } }`.
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

/** One documented REST operation of the area's record. */
export interface RestRow {
  path: string;
  /** The API document's task ("create an entry"). */
  task: string;
  /** The API document's section the shared tests read it from, when not the area's (rest-facade/types.ts). */
  documentedIn?: string;
  /** Default the area's `rest.versions`. */
  versions?: string[];
  /** How this row names the record's id when not as the area's `rest.id` (plugins: `extension_id` from `{id}`). */
  id?: { name?: string; description?: string; default?: number };
  /** What the answer selects on the record beyond its fragment (a wiki page's text and revision). */
  selection?: string;
  /**
   * Parameters beyond the id and the fields, each feeding a variable `selection` uses, with its GraphQL type.
   */
  params?: (RestParam & { graphqlType: string })[];
  /** Fields of the table the row does not take (the wiki's POST: `summary`); of a list row, the REST parameters it does not take. */
  except?: string[];
  /** A `fields` parameter: the keys of the answer to keep (rest-facade/fields-param.ts), by default and always. */
  fields?: { default: string[]; alwaysKept?: string[]; description: string };
}

/** A list's REST row (AreaDeclaration.rest.list). */
export type ListRow = RestRow &
  ({ key: string; extra?: Record<string, unknown> } | { response: RestResponse }) & {
    /**
     * The row's parameters where the API document names or orders them otherwise than the kit (filters,
     * `limit`, `start`, `search`, `sort`, `sort_Dir`, `scope`, `scope_id`): in its order, each kit name
     * `true` or its documented name (the forum's `start: "limitstart"`); one left out is not taken, its
     * argument keeps its default (or `fixed`'s value).
     */
    documented?: Record<string, string | true>;
    /** GraphQL arguments the row fixes rather than takes (forum sections: one page of `limit: 100`). */
    fixed?: Record<string, number | string>;
    /** POST where the API document says so (`POST /courses/list`: a read all the same, open to whoever may list); default GET. */
    method?: "GET" | "POST";
  };
