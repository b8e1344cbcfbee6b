import { ANSWERS_SECRET } from "../graphql/crud.js";
import { builder } from "../graphql/builder.js";
import { listType, pageArgs } from "../graphql/list.js";
import { listOwnSessions, revokeOtherSessions, revokeOwnSession, type OwnSession } from "./sessions.js";
import { listOwnTokens, revokeOtherTokens, revokeOwnToken, type OwnToken } from "./tokens.js";
import { registerClient } from "./oauth.js";

/**
 * A signed-in user's own cookie sessions and OAuth2 tokens: listed without any secret, revoked one by one
 * or all but the one in use. Each user sees and revokes only their own (the services); administrators
 * end other users' access with the CLI (`hubgraph token revoke --user … --sessions`).
 */
const SessionType = builder.objectRef<OwnSession>("Session").implement({
  description: "One of the caller's cookie sessions (never its cookie or CSRF token).",
  fields: (t) => ({
    id: t.exposeID("id"),
    created: t.expose("created", { type: "DateTime", description: "When the user signed in." }),
    expires: t.expose("expires", { type: "DateTime" }),
    current: t.exposeBoolean("current", { description: "The session this request is authenticated with." }),
  }),
});

const OAuthTokenType = builder.objectRef<OwnToken>("OAuthToken").implement({
  description: "One of the caller's OAuth2 sign-ins: its newest access token and refresh token (never the tokens or their hashes).",
  fields: (t) => ({
    id: t.exposeID("id"),
    clientId: t.exposeString("clientId"),
    clientName: t.exposeString("clientName"),
    scope: t.exposeString("scope", { nullable: true }),
    created: t.expose("created", { type: "DateTime", description: "When this access token was issued (a refresh issues a new one)." }),
    accessTokenExpires: t.expose("accessTokenExpires", { type: "DateTime" }),
    refreshTokenExpires: t.expose("refreshTokenExpires", { type: "DateTime", nullable: true, description: "Null for a token issued without a refresh token." }),
    current: t.exposeBoolean("current", { description: "The token this request is authenticated with." }),
  }),
});

builder.queryField("mySessions", (t) =>
  t.field({
    type: listType("SessionList", SessionType),
    description: "The caller's live cookie sessions, newest first.",
    authScopes: { user: true },
    args: pageArgs,
    resolve: (_root, args, ctx) => listOwnSessions(ctx, args),
  }),
);

builder.queryField("myTokens", (t) =>
  t.field({
    type: listType("OAuthTokenList", OAuthTokenType),
    description: "The caller's live OAuth2 tokens, one per sign-in (spent refresh tokens are not listed), newest first.",
    authScopes: { user: true },
    args: pageArgs,
    resolve: (_root, args, ctx) => listOwnTokens(ctx, args),
  }),
);

builder.mutationField("revokeSession", (t) =>
  t.field({
    type: "ID",
    description: "Ends one of the caller's sessions (the current one signs the caller out); returns its id. Another user's session is not found.",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => revokeOwnSession(ctx, String(id)),
  }),
);

builder.mutationField("revokeOtherSessions", (t) =>
  t.int({
    description: "Ends every session of the caller but the one this request uses; returns how many ended.",
    authScopes: { user: true },
    resolve: (_root, _args, ctx) => revokeOtherSessions(ctx),
  }),
);

builder.mutationField("revokeToken", (t) =>
  t.field({
    type: "ID",
    description: "Revokes one of the caller's tokens, with every token of its sign-in; returns its id. Another user's token is not found.",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => revokeOwnToken(ctx, String(id)),
  }),
);

builder.mutationField("revokeOtherTokens", (t) =>
  t.int({
    description: "Revokes every token of the caller but the sign-in this request uses (all of them from a cookie session); returns how many.",
    authScopes: { user: true },
    resolve: (_root, _args, ctx) => revokeOtherTokens(ctx),
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
    extensions: ANSWERS_SECRET,
    authScopes: { user: true },
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, { name }, ctx) => {
      const { client, secret } = await registerClient(ctx, name);
      return { clientId: client.id, clientSecret: secret, name: client.name, grants: client.grants };
    },
  }),
);
