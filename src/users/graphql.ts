import { builder } from "../graphql/builder.js";
import { canSeeAccountDetails, createUser, currentUser } from "./service.js";
import { registerClient } from "../auth/oauth.js";

export const UserType = builder.prismaObject("User", {
  fields: (t) => ({
    id: t.exposeID("id"),
    username: t.exposeString("username"),
    name: t.exposeString("name"),
    email: t.string({
      nullable: true,
      description: "Shown to the account's owner and to administrators; null for everyone else.",
      select: { email: true },
      resolve: (user, _args, ctx) => (canSeeAccountDetails(ctx, user.id) ? user.email : null),
    }),
    admin: t.boolean({
      nullable: true,
      description: "Site administrator. Shown to the account's owner and to administrators; null for everyone else.",
      select: { isAdmin: true },
      resolve: (user, _args, ctx) => (canSeeAccountDetails(ctx, user.id) ? user.isAdmin : null),
    }),
    created: t.expose("created", { type: "DateTime" }),
  }),
});

builder.queryField("me", (t) =>
  t.prismaField({
    type: "User",
    description: "The signed-in caller.",
    authScopes: { user: true },
    resolve: (query, _root, _args, ctx) => currentUser(ctx, query),
  }),
);

const CreateUserInput = builder.inputType("CreateUserInput", {
  fields: (t) => ({
    username: t.string({ required: true }),
    email: t.string({ required: true }),
    password: t.string({ required: true }),
    name: t.string({ required: true }),
    admin: t.boolean({ description: "Administrators only." }),
  }),
});

builder.mutationField("createUser", (t) =>
  t.prismaField({
    type: "User",
    description: "Creates an account. Administrators always may; anyone may when REGISTRATION=open.",
    authScopes: { public: true },
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: async (_query, _root, { input }, ctx) => {
      // The row as the insert returned it (every scalar): a read through Prisma would not see it inside the
      // transaction of a keyed request (src/http/write-conditions.ts), and on PGlite would wait for it.
      return createUser(ctx, { ...input, isAdmin: input.admin ?? undefined });
    },
  }),
);

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  name: string;
  grants: string[];
}

const OAuthClientCredentials = builder.objectRef<ClientCredentials>("OAuthClientCredentials").implement({
  description: "A newly registered OAuth2 client. The secret is shown only once.",
  fields: (t) => ({
    clientId: t.exposeString("clientId"),
    clientSecret: t.exposeString("clientSecret"),
    name: t.exposeString("name"),
    grants: t.exposeStringList("grants"),
  }),
});

builder.mutationField("registerOAuthClient", (t) =>
  t.field({
    type: OAuthClientCredentials,
    description: "Registers a confidential OAuth2 client owned by the caller; its client_credentials tokens act as the caller.",
    authScopes: { user: true },
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, { name }, ctx) => {
      const { client, secret } = await registerClient(ctx, name);
      return { clientId: client.id, clientSecret: secret, name: client.name, grants: client.grants };
    },
  }),
);
