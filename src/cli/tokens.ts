import { FIRST_PARTY_CLIENT_ID, ensureFirstPartyClient, registerClient } from "../auth/oauth.js";
import { issueAccessToken, revokeTokenByValue } from "../auth/tokens.js";
import { CliError, contextAs, counted, findUserOrFail, service, usageError, type CliRun } from "./context.js";

/** A year: longer-lived access is what registered clients (client_credentials) are for. */
const MAX_TTL = 366 * 24 * 3600;

/**
 * Issues a bearer token for a user without their password (an operator's tool, e.g. for scripts). It is
 * stored the way the token endpoint stores its tokens, as a SHA-256 hash for the first-party client, so
 * everything that checks or revokes tokens treats both alike. No refresh token: issue a new one instead.
 */
export async function issueTokenCommand(run: CliRun, username: string, options: { ttl?: string }): Promise<void> {
  const ttl = options.ttl === undefined ? run.config.accessTokenTtl : Number(options.ttl);
  if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_TTL) {
    throw usageError(`--ttl must be a whole number of seconds from 1 to ${MAX_TTL} (a year; got "${options.ttl}")`);
  }
  const user = await findUserOrFail(run, username);
  await ensureFirstPartyClient(run.db.prisma);
  const { accessToken, expiresAt } = await issueAccessToken(run.db.prisma, user.id, FIRST_PARTY_CLIENT_ID, ttl);
  // The token alone on stdout, so `TOKEN=$(hubgraph token issue admin)` works; the rest on stderr.
  run.say(accessToken);
  run.io.stderr(`bearer token for "${username}", valid until ${expiresAt.toISOString()}\n`);
}

/** Ends a user's bearer and refresh tokens, and with `sessions` their cookie sessions too. */
export async function revokeAccess(run: CliRun, userId: number, options: { sessions?: boolean }) {
  const tokens = await run.db.prisma.oAuthToken.deleteMany({ where: { userId } });
  const sessions = options.sessions ? await run.db.prisma.session.deleteMany({ where: { userId } }) : { count: 0 };
  return { tokens: tokens.count, sessions: sessions.count };
}

/**
 * Revokes one token — an access or a refresh token, from the token endpoint or from `token issue`; the
 * pair it belongs to stops working, and for a refresh token every token of its sign-in (as RFC 7009
 * revocation does) — or every token of a user.
 */
export async function revokeTokenCommand(run: CliRun, token: string | undefined, options: { user?: string; sessions?: boolean }): Promise<void> {
  if ((token === undefined) === (options.user === undefined)) throw usageError("give either a <token> or --user <username>");
  if (token !== undefined) {
    if (options.sessions) throw usageError("--sessions goes with --user");
    if (!(await revokeTokenByValue(run.db.prisma, token.trim()))) throw new CliError("no such token (it may have been revoked or replaced by a refresh already)");
    run.say("token revoked");
    return;
  }
  const user = await findUserOrFail(run, options.user!);
  const ended = await revokeAccess(run, user.id, options);
  run.say(`revoked ${counted(ended.tokens, "token")} of "${user.username}"${options.sessions ? ` and ended ${counted(ended.sessions, "session")}` : ""}`);
}

/** Registers a confidential OAuth client owned by a user (its client_credentials tokens act as that user). */
export async function registerClientCommand(run: CliRun, name: string, options: { owner: string }): Promise<void> {
  const owner = await findUserOrFail(run, options.owner);
  const { client, secret } = await service(registerClient(contextAs(run, owner), name), { name: "<name>" });
  run.say(`client_id: ${client.id}`);
  run.say(`client_secret: ${secret}`);
  run.io.stderr("the secret is shown only now; it is stored as a hash\n");
}
