import type { User } from "../generated/prisma/client.js";
import { REST_TIMESTAMP_PATTERN, restTimestamp } from "../common/time.js";

/** The REST shape of a user outside the facade (session endpoints); never includes the password hash. */
export const publicUser = (user: User) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  email: user.email,
  admin: user.isAdmin,
  created: restTimestamp(user.created),
});

/** `publicUser` as JSON Schema, for the OpenAPI document of the session endpoints. */
export const PUBLIC_USER_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "integer" },
    username: { type: "string" },
    name: { type: "string" },
    email: { type: "string" },
    admin: { type: "boolean" },
    created: { type: "string", pattern: REST_TIMESTAMP_PATTERN },
  },
  required: ["id", "username", "name", "email", "admin", "created"],
  additionalProperties: false,
};
