import { MemberCreateDocument, MemberMeDocument } from "../generated/members.js";
import type { RestOperation } from "../types.js";
import { anyoneMayCreateAccounts } from "../../src/users/service.js";

/** Accounts (contract: Authentication). */
const operations: RestOperation[] = [
  {
    area: "members",
    method: "POST",
    path: "/members",
    versions: ["1.0"],
    task: "create a user (administrators; anyone when REGISTRATION=open)",
    params: [
      { name: "username", type: "string", required: true, description: "Login name.", variable: "input.username" },
      { name: "email", type: "string", required: true, description: "E-mail address.", variable: "input.email" },
      { name: "password", type: "string", required: true, description: "Password (at least 8 characters).", variable: "input.password" },
      { name: "name", type: "string", required: true, description: "Display name.", variable: "input.name" },
      { name: "admin", type: "boolean", required: false, default: false, description: "Site administrator (administrators only).", variable: "input.admin" },
    ],
    document: MemberCreateDocument,
    resultField: "createUser",
    response: { kind: "record" },
    status: 201,
    access: "administrator",
    opensToAnonymous: anyoneMayCreateAccounts,
  },
  {
    area: "members",
    method: "GET",
    path: "/members/me",
    versions: ["1.0"],
    task: "the signed-in caller",
    params: [],
    document: MemberMeDocument,
    resultField: "me",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
