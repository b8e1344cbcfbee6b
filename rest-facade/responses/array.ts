import { registerResponseKind } from "../responses.js";

declare module "../../src/common/rest-vocabulary.js" {
  interface ResponseKinds {
    /**
     * A list as a bare JSON array of its items, the total in the `X-Total-Count` header (GET /groups/list:
     * the original answers a bare array).
     */
    array: {};
  }
}

export const TOTAL_HEADER = "X-Total-Count";

registerResponseKind({
  kind: "array",
  send(res, operation, value) {
    const list = value as { items: unknown[]; total: number };
    res.set(TOTAL_HEADER, String(list.total)).status(operation.status).json(list.items);
  },
  describe(operation, value) {
    const selected = value.properties ?? {};
    if (!selected.items || !selected.total) throw new Error(`array row ${operation.method} ${operation.path} must select items and total`);
    return { mediaType: "application/json", schema: selected.items };
  },
});
