import { defineArea } from "../common/area.js";
import { accountRules, anyoneMayCreateAccounts, createUser, USER_RECORDS } from "./service.js";

/**
 * Accounts (the contract's Authentication), declared as one (src/common/area.ts). They are not listed, not read
 * by id and raise no events; an account is made by its own create (REGISTRATION, password strength, a name
 * unique regardless of case), and the signed-in caller reads theirs through `me` (src/users/graphql.ts). Their
 * secrets (the password's hash) and the lower-cased keys the sign-in looks up are never shown.
 */
export const USERS_AREA = defineArea({
  area: "members",
  model: "User",
  plural: "users",
  label: "Member",
  description: "An account: its names for everyone, its e-mail address and role for its owner and administrators.",
  policy: USER_RECORDS,
  fields: {
    username: { type: "String", rule: accountRules.username, required: true, rest: { description: "Login name." } },
    email: { type: "String", rule: accountRules.email, required: true, rest: { description: "E-mail address." } },
    // Hashed by the area's create (column false): never stored as given.
    password: { type: "String", rule: accountRules.password, required: true, column: false, rest: { description: "Password (at least 8 characters)." } },
    name: { type: "String", rule: accountRules.name, required: true, rest: { description: "Display name." } },
    admin: {
      type: "Boolean",
      rule: accountRules.isAdmin,
      default: false,
      column: "isAdmin",
      description: "Administrators only.",
      rest: { description: "Site administrator (administrators only)." },
    },
  },
  shown: {
    id: true,
    username: true,
    name: true,
    // Null to everyone but the account's owner and administrators (the records' privateFields).
    email: { description: "Shown to the account's owner and to administrators; null for everyone else.", nullable: true },
    admin: { description: "Site administrator. Shown to the account's owner and to administrators; null for everyone else.", from: "isAdmin", nullable: true },
    created: true,
  },
  hidden: ["usernameKey", "emailKey", "passwordHash"],
  writes: {
    by: "administrators",
    forbidden: "Only administrators can create accounts.",
    openedBy: anyoneMayCreateAccounts,
    create: "Creates an account. Administrators always may; anyone may when REGISTRATION=open.",
    names: [],
  },
  own: {
    // The row as the insert returned it (every scalar): a read through Prisma would not see it inside the
    // transaction of a keyed request (src/execution/conditions.ts), and on PGlite would wait for it.
    create: (ctx, input) => createUser(ctx, { ...(input as { username: string; email: string; password: string; name: string }), isAdmin: (input.admin as boolean | null | undefined) ?? undefined }),
  },
  rest: {
    versions: ["1.0"],
    create: { path: "/members", task: "create a user (administrators; anyone when REGISTRATION=open)" },
  },
});
