import type { User } from "../generated/prisma/client.js";
import { restTimestamp } from "../common/time.js";

/** The REST shape of a user outside the facade (session endpoints); never includes the password hash. */
export const publicUser = (user: User) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  email: user.email,
  admin: user.isAdmin,
  created: restTimestamp(user.created),
});
