import type { JsonSchema, PathsObject } from "../../rest-facade/openapi-types.js";
import type { RestOperation } from "../../rest-facade/types.js";
import { PUBLIC_USER_SCHEMA } from "../users/present.js";
import { SAFE_METHODS } from "./http.js";
import { FIRST_PARTY_CLIENT_ID, SUPPORTED_GRANTS } from "./oauth.js";
import { SESSION_COOKIE } from "./sessions.js";

/**
 * The OpenAPI description of what this folder serves (src/api-docs/ puts it in the document): the
 * security schemes (OAuth2 token endpoint, bearer tokens, the session cookie with its X-CSRF-Token) and
 * the protocol endpoints of http.ts, which are not facade rows. Kept next to the code it describes;
 * the test harness checks every response the tests get against it.
 */

const TOKEN_PATH = "/developer/oauth/token";
const TOKEN_URL = `/api${TOKEN_PATH}`;
const SCOPES = { api: "The whole API (the only scope so far)." };

export const securitySchemes = {
  oauth2: {
    type: "oauth2",
    description: `Access tokens from ${TOKEN_URL}. The first-party client \`${FIRST_PARTY_CLIENT_ID}\` needs no secret for the password and refresh_token grants; confidential clients (the CLI's \`client\` command) authenticate with HTTP Basic or client_id/client_secret in the body.`,
    flows: {
      password: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: SCOPES },
      clientCredentials: { tokenUrl: TOKEN_URL, refreshUrl: TOKEN_URL, scopes: SCOPES },
    },
  },
  bearer: { type: "http", scheme: "bearer", description: "An access token from the token endpoint, as `Authorization: Bearer <token>`." },
  session: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "The session cookie that POST /api/session sets (for browsers).",
  },
  csrf: {
    type: "apiKey",
    in: "header",
    name: "X-CSRF-Token",
    description: "The session's CSRF token (from POST or GET /api/session); required with the session cookie on every request that is not GET, HEAD or OPTIONS.",
  },
  clientBasic: { type: "http", scheme: "basic", description: "A confidential OAuth client's id and secret, at the token endpoint only." },
} as const;

type Requirement = Record<string, string[]>;

/** Who may call: a signed-in caller proves it with a token or with the session cookie (and its CSRF token on unsafe methods). */
export function securityFor(method: string, access: RestOperation["access"]): Requirement[] {
  const cookie: Requirement = SAFE_METHODS.has(method.toUpperCase()) ? { session: [] } : { session: [], csrf: [] };
  const signedIn: Requirement[] = [{ oauth2: ["api"] }, { bearer: [] }, cookie];
  return access === "anyone" ? [{}, ...signedIn] : signedIn;
}

const json = (schema: JsonSchema) => ({ "application/json": { schema } });
/** Protocol bodies are read by the same parsers as rows' (request-parsers.ts): JSON or a form. */
const formOrJson = (schema: JsonSchema) => ({ "application/x-www-form-urlencoded": { schema }, "application/json": { schema } });

const tokenError: JsonSchema = {
  type: "object",
  description: "RFC 6749 §5.2's error, with the contract's message and code beside it.",
  properties: {
    error: { type: "string", description: "invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope." },
    error_description: { type: "string" },
    message: { type: "string" },
    code: { type: "integer" },
  },
  required: ["error", "error_description", "message", "code"],
  additionalProperties: false,
};

const sessionBody: JsonSchema = {
  type: "object",
  properties: { user: PUBLIC_USER_SCHEMA, csrfToken: { type: "string", description: "Send it as X-CSRF-Token with every unsafe request." } },
  required: ["user", "csrfToken"],
  additionalProperties: false,
};

const credentials: JsonSchema = {
  type: "object",
  properties: { username: { type: "string" }, password: { type: "string" } },
  required: ["username", "password"],
};

/**
 * Whether `GET /api/<area>` is one of the protocol endpoints below (`GET /api/session` is the cookie
 * session), which answer before the facade: such an area has no description at that path, so neither the
 * `GET /api` index nor the OpenAPI document offers one.
 */
export const answeredByProtocolEndpoint = (area: string): boolean => Boolean(authPaths[`/${area}`]?.get);

/** The facade table's areas that have a description at `GET /api/<area>`: what the index lists, the document describes and the start-up line shows. */
export const describedAreas = (operations: readonly RestOperation[]): string[] =>
  [...new Set(operations.map((operation) => operation.area))].filter((area) => !answeredByProtocolEndpoint(area));

/** The token endpoint and the cookie session (http.ts). Statuses every /api operation may answer are added by the document. */
export const authPaths: PathsObject = {
  [TOKEN_PATH]: {
    post: {
      operationId: "postToken",
      summary: "get an access token (OAuth2 password, refresh_token or client_credentials grant)",
      description: "RFC 6749 token endpoint. Sign-in failures are rate-limited (LOGIN_RATE_LIMIT).",
      tags: ["auth"],
      requestBody: {
        required: true,
        content: formOrJson({
          type: "object",
          properties: {
            grant_type: { type: "string", enum: [...SUPPORTED_GRANTS] },
            username: { type: "string", description: "password grant" },
            password: { type: "string", description: "password grant" },
            refresh_token: { type: "string", description: "refresh_token grant" },
            client_id: { type: "string", description: `default ${FIRST_PARTY_CLIENT_ID}` },
            client_secret: { type: "string", description: "confidential clients (or HTTP Basic)" },
            scope: { type: "string", enum: ["api"] },
          },
          required: ["grant_type"],
        }),
      },
      responses: {
        "200": {
          description: "A token",
          content: json({
            type: "object",
            properties: {
              access_token: { type: "string" },
              token_type: { const: "Bearer" },
              expires_in: { type: "integer", description: "Seconds (ACCESS_TOKEN_TTL)." },
              refresh_token: { type: "string", description: "Not for client_credentials." },
              scope: { type: "string" },
            },
            required: ["access_token", "token_type", "expires_in", "scope"],
            additionalProperties: false,
          }),
        },
        // A body that is not even JSON is answered by the app like any other request (the contract's error).
        "400": { description: "A bad token request", content: json({ anyOf: [tokenError, { $ref: "#/components/schemas/Error" }] }) },
        "401": { description: "The client failed to authenticate", content: json({ anyOf: [tokenError, { $ref: "#/components/schemas/Error" }] }) },
      },
      security: [{}, { clientBasic: [] }],
    },
  },
  "/developer/oauth/revoke": {
    post: {
      operationId: "postRevoke",
      summary: "revoke an access or refresh token (RFC 7009)",
      description:
        "A refresh token revokes every token of its sign-in; an access token revokes itself and the refresh token issued with it. Any token, known or not, is answered 200 (RFC 7009 §2.2); a token of another client is not revoked. Failed client authentications are rate-limited like sign-ins.",
      tags: ["auth"],
      requestBody: {
        required: true,
        content: formOrJson({
          type: "object",
          properties: {
            token: { type: "string" },
            token_type_hint: { type: "string", enum: ["access_token", "refresh_token"] },
            client_id: { type: "string", description: `default ${FIRST_PARTY_CLIENT_ID}` },
            client_secret: { type: "string", description: "confidential clients (or HTTP Basic)" },
          },
          required: ["token"],
        }),
      },
      responses: {
        "200": { description: "Revoked, or nothing to revoke" },
        "400": { description: "No token", content: json({ anyOf: [tokenError, { $ref: "#/components/schemas/Error" }] }) },
        "401": { description: "The client failed to authenticate", content: json({ anyOf: [tokenError, { $ref: "#/components/schemas/Error" }] }) },
      },
      security: [{}, { clientBasic: [] }],
    },
  },
  "/session": {
    post: {
      operationId: "postSession",
      summary: "sign in with a cookie session (browsers)",
      description:
        "Sets the session cookie and answers its CSRF token. From a page of another origin, send an X-CSRF-Token header (any value) or list the origin in CORS_ORIGINS.",
      tags: ["auth"],
      requestBody: { required: true, content: formOrJson(credentials) },
      responses: { "201": { description: "Signed in", content: json(sessionBody) } },
      security: [{}],
    },
    get: {
      operationId: "getSession",
      summary: "the current session's user and CSRF token",
      tags: ["auth"],
      responses: { "200": { description: "The session", content: json(sessionBody) } },
      security: [{ session: [] }],
    },
    delete: {
      operationId: "deleteSession",
      summary: "sign out (ends the session)",
      tags: ["auth"],
      responses: { "204": { description: "Signed out" } },
      security: [{ session: [], csrf: [] }],
    },
  },
};
