import type { Response } from "express";
import type { ResponseKinds, RestOperation, RestResponse } from "./types.js";

/** A row whose response is of the given kind, with that kind's options. */
export type RowWithResponse<Kind extends keyof ResponseKinds> = RestOperation & { response: Extract<RestResponse, { kind: Kind }> };

/**
 * One way of turning a row's result into the REST response. `value` is the row's result field, already
 * rendered the REST way (timestamps, integer ids). A new kind lives in its own file: it declares its row
 * options in `ResponseKinds` (types.ts) and calls `registerResponseKind`; the rows that use it import that
 * file, so the kind is registered wherever they are. The start-up check refuses a row of an unknown kind.
 */
export interface ResponseKind<Kind extends keyof ResponseKinds = keyof ResponseKinds> {
  kind: Kind;
  send(res: Response, operation: RowWithResponse<Kind>, value: unknown): void | Promise<void>;
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
});

registerResponseKind({
  kind: "list",
  send(res, operation, value) {
    const list = value as { items: unknown[]; total: number };
    res.status(operation.status).json({ [operation.response.key]: list.items, total: list.total, ...operation.response.extra });
  },
});

registerResponseKind({
  kind: "empty",
  send: (res, operation) => void res.status(operation.status).end(),
});
