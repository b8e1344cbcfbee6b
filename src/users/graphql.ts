import { builder } from "../graphql/builder.js";
import { currentUser } from "./service.js";

// The User type, and createUser, are the area's (src/users/area.ts): here only what accounts have beside it.
// Signing in (sessions, tokens, OAuth2 clients) is src/auth's.

builder.queryField("me", (t) =>
  t.prismaField({
    type: "User",
    description: "The signed-in caller.",
    authScopes: { user: true },
    resolve: (query, _root, _args, ctx) => currentUser(ctx, query),
  }),
);
