import { SessionListDocument, SessionRevokeDocument, SessionRevokeOthersDocument } from "../generated/session.js";
import { pageParams } from "../page-params.js";
import type { RestOperation } from "../types.js";

/**
 * The caller's own cookie sessions (docs/decisions.md, Authentication): not in the API document. Beside
 * the protocol endpoint `/api/session` (sign in, the current session, sign out), which is no facade row.
 */
const operations: RestOperation[] = [
  {
    area: "session",
    method: "GET",
    path: "/session/list",
    versions: ["1.0"],
    task: "list the caller's cookie sessions",
    params: pageParams(),
    document: SessionListDocument,
    resultField: "mySessions",
    response: { kind: "list", key: "sessions" },
    status: 200,
    access: "signed-in user",
  },
  {
    area: "session",
    method: "DELETE",
    path: "/session/others",
    versions: ["1.0"],
    task: "end every session of the caller but the current one",
    params: [],
    document: SessionRevokeOthersDocument,
    resultField: "revokeOtherSessions",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "session",
    method: "DELETE",
    path: "/session/{id}",
    versions: ["1.0"],
    task: "end one of the caller's sessions",
    params: [{ name: "id", type: "integer", required: true, description: "Session identifier (from /session/list).", variable: "id" }],
    document: SessionRevokeDocument,
    resultField: "revokeSession",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
];

export default operations;
