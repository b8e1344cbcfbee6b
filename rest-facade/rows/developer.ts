import { TokenListDocument, TokenRevokeDocument, TokenRevokeOthersDocument } from "../generated/developer.js";
import { pageParams } from "../page-params.js";
import type { RestOperation } from "../types.js";

/**
 * The caller's own OAuth2 tokens (docs/decisions.md, Authentication): not in the API document. Beside the
 * protocol endpoints `/api/developer/oauth/token` and `/oauth/revoke`, which are no facade rows.
 */
const operations: RestOperation[] = [
  {
    area: "developer",
    method: "GET",
    path: "/developer/tokens",
    versions: ["1.0"],
    task: "list the caller's OAuth2 tokens (one per sign-in)",
    params: pageParams(),
    document: TokenListDocument,
    resultField: "myTokens",
    response: { kind: "list", key: "tokens" },
    status: 200,
    access: "signed-in user",
  },
  {
    area: "developer",
    method: "DELETE",
    path: "/developer/tokens/others",
    versions: ["1.0"],
    task: "revoke every token of the caller but the one in use",
    params: [],
    document: TokenRevokeOthersDocument,
    resultField: "revokeOtherTokens",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "developer",
    method: "DELETE",
    path: "/developer/tokens/{id}",
    versions: ["1.0"],
    task: "revoke one of the caller's tokens, with every token of its sign-in",
    params: [{ name: "id", type: "integer", required: true, description: "Token identifier (from /developer/tokens).", variable: "id" }],
    document: TokenRevokeDocument,
    resultField: "revokeToken",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
];

export default operations;
