import type { AreaTesting } from "../../test/areas.js";
import type { TestServer } from "../../test/server.js";
import { FIRST_PARTY_CLIENT_ID } from "./oauth.js";
import { startSession } from "./sessions.js";
import { issueAccessToken } from "./tokens.js";

/**
 * The caller's own sessions and tokens: our rows, not in the API document, so nothing is transcribed.
 * The fixtures make a credential for the user behind `token` with the services the sign-in endpoints use
 * (signing in through HTTP would need the user's password, which the shared tests do not have).
 */
async function userBehind(server: TestServer, token: string): Promise<number> {
  const me = await server.rest("GET", "/members/me", { token });
  if (me.status !== 200) throw new Error(`finding the caller failed (${me.status}): ${JSON.stringify(me.body)}`);
  return me.body.id;
}

export const testings: AreaTesting[] = [
  {
    area: "session",
    documented: {},
    async create(server, token) {
      return (await startSession(server.app.db.prisma, await userBehind(server, token), 3600)).session.id;
    },
  },
  {
    area: "developer",
    documented: {},
    async create(server, token) {
      return (await issueAccessToken(server.app.db.prisma, await userBehind(server, token), FIRST_PARTY_CLIENT_ID, 3600)).id;
    },
  },
];
