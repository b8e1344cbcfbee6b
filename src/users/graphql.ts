import { builder } from "../graphql/builder.js";
import { currentUser } from "./service.js";
import { registerClient } from "../auth/oauth.js";

// The User type, and createUser, are the area's (src/users/area.ts): here only what accounts have beside it.

builder.queryField("me", (t) =>
  t.prismaField({
    type: "User",
    description: "The signed-in caller.",
    authScopes: { user: true },
    resolve: (query, _root, _args, ctx) => currentUser(ctx, query),
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
