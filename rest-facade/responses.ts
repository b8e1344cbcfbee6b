import type { Response } from "express";
import type { JsonSchema } from "./openapi-types.js";
import { admitsNull, withoutNull } from "./nullable-schemas.js";
import type { RestOperation } from "./types.js";
import type { ResponseKinds, RestResponse } from "../src/common/rest-vocabulary.js";

/** A row whose response is of the given kind, with that kind's options. */
export type RowWithResponse<Kind extends keyof ResponseKinds> = RestOperation & { response: Extract<RestResponse, { kind: Kind }> };

/**
 * One way of turning a row's result into the REST response. `value` is the row's result field, already
 * rendered the REST way (timestamps, integer ids). A new kind lives in its own file: it declares its row
 * options in `ResponseKinds` (src/common/rest-vocabulary.ts) and calls `registerResponseKind`; the rows that use it import that
 * file, so the kind is registered wherever they are. The start-up check refuses a row of an unknown kind.
 */
export interface ResponseKind<Kind extends keyof ResponseKinds = keyof ResponseKinds> {
  kind: Kind;
  send(res: Response, operation: RowWithResponse<Kind>, value: unknown): void | Promise<void>;
  /**
   * The OpenAPI description of what `send` answers, given the JSON Schema of `value` (worked out from the
   * row's GraphQL selection by openapi.ts): the body's media type and schema, or null for no body.
   */
  describe(operation: RowWithResponse<Kind>, value: JsonSchema): { mediaType: string; schema: JsonSchema } | null;
  /** Further success statuses `send` may answer without a body, with what they mean (status → description). */
  otherResponses?(operation: RowWithResponse<Kind>, value: JsonSchema): Record<number, string>;
}

const registry = new Map<string, ResponseKind<any>>();

export function registerResponseKind<Kind extends keyof ResponseKinds>(responseKind: ResponseKind<Kind>): ResponseKind<Kind> {
  const known = registry.get(responseKind.kind);
  if (known && known !== responseKind) throw new Error(`facade response kind "${responseKind.kind}" is registered twice`);
  registry.set(responseKind.kind, responseKind);
  return responseKind;
}

export function responseKind(kind: string): ResponseKind | undefined {
  return registry.get(kind);
}

export const registeredResponseKinds = (): string[] => [...registry.keys()];

registerResponseKind({
  kind: "record",
  // No record: an update done on a record the caller may not read (GraphQL answers null); 204, as nothing is shown.
  send: (res, operation, value) => void (value === null ? res.status(204).end() : res.status(operation.status).json(value)),
  describe: (_operation, value) => ({ mediaType: "application/json", schema: withoutNull(value) }),
  otherResponses: (_operation, value): Record<number, string> =>
    admitsNull(value) ? { 204: "Done, but the caller may change the record without being allowed to read it (a scope's manager and a member's draft), so nothing is shown." } : {},
});

registerResponseKind({
  kind: "list",
  send(res, operation, value) {
    const list = value as { items: unknown[]; total: number };
    res.status(operation.status).json({ [operation.response.key]: list.items, total: list.total, ...operation.response.extra });
  },
  describe(operation, value) {
    const { key, extra = {} } = operation.response;
    const selected = value.properties ?? {};
    if (!selected.items || !selected.total) throw new Error(`list row ${operation.method} ${operation.path} must select items and total`);
    const properties: Record<string, JsonSchema> = { [key]: selected.items, total: selected.total };
    for (const [name, constant] of Object.entries(extra)) properties[name] = { const: constant };
    return { mediaType: "application/json", schema: { type: "object", properties, required: Object.keys(properties), additionalProperties: false } };
  },
});

registerResponseKind({
  kind: "empty",
  send: (res, operation) => void res.status(operation.status).end(),
  describe: () => null,
});
