import { randomSecret } from "../auth/secrets.js";
import { forgetChangedFirstRunPassword, passwordFileOf } from "../auth/first-run.js";
import { createUser, setPassword } from "../users/service.js";
import { counted, findUserOrFail, operatorContext, readFirstLine, service, usageError, type CliRun } from "./context.js";
import { revokeAccess } from "./tokens.js";

export interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/** The password from --password or the first line of stdin, or null when neither was given. */
export async function passwordFrom(run: CliRun, options: PasswordOptions): Promise<string | null> {
  if (options.password !== undefined && options.passwordStdin) throw usageError("give either --password or --password-stdin, not both");
  if (options.passwordStdin) return readFirstLine(run.io.stdin);
  return options.password ?? null;
}

/** The option a password came from, for error messages: the one the user actually typed. */
export const passwordOptionOf = (options: PasswordOptions, given: string | null) => (given === null ? "password" : options.passwordStdin ? "--password-stdin" : "--password");

/** A password for someone to change later: 20 URL-safe random characters (120 bits). */
export const generatedPassword = () => randomSecret().slice(0, 20);

export async function createUserCommand(
  run: CliRun,
  username: string,
  options: PasswordOptions & { email: string; name?: string; admin?: boolean },
): Promise<void> {
  const given = await passwordFrom(run, options);
  const password = given ?? generatedPassword();
  const user = await service(
    createUser(operatorContext(run), { username, email: options.email, name: options.name ?? username, password, isAdmin: options.admin ?? false }),
    { username: "<username>", email: "--email", name: "--name", password: passwordOptionOf(options, given) },
  );
  run.say(`created ${user.isAdmin ? "administrator" : "user"} "${user.username}" (id ${user.id})`);
  if (given === null) run.say(`password: ${password}`);
}

export async function setAdministratorCommand(run: CliRun, username: string, isAdmin: boolean): Promise<void> {
  const user = await findUserOrFail(run, username);
  if (user.isAdmin === isAdmin) {
    run.say(`"${username}" ${isAdmin ? "is an administrator already" : "is not an administrator"}; nothing changed`);
    return;
  }
  await run.db.prisma.user.update({ where: { id: user.id }, data: { isAdmin } });
  run.say(isAdmin ? `"${username}" is now an administrator` : `"${username}" is no longer an administrator`);
}

/** A new password, and the old one's sessions and tokens end: a reset usually means the account was at risk. */
export async function resetPasswordCommand(run: CliRun, username: string, options: PasswordOptions): Promise<void> {
  const user = await findUserOrFail(run, username);
  const given = await passwordFrom(run, options);
  const password = given ?? generatedPassword();
  await service(setPassword(run.db.prisma, user.id, password), { password: passwordOptionOf(options, given) });
  const ended = await revokeAccess(run, user.id, { sessions: true });
  run.say(`password of "${username}" changed; signed out everywhere (${counted(ended.tokens, "token")} and ${counted(ended.sessions, "session")} ended)`);
  if (await forgetChangedFirstRunPassword(run.db.prisma, run.config.dataDir)) run.say(`deleted ${passwordFileOf(run.config.dataDir)}: it held the old password`);
  if (given === null) run.say(`password: ${password}`);
}

export async function listUsersCommand(run: CliRun, options: { admins?: boolean; json?: boolean }): Promise<void> {
  const users = await run.db.prisma.user.findMany({
    where: options.admins ? { isAdmin: true } : {},
    orderBy: { id: "asc" },
    select: { id: true, username: true, email: true, name: true, isAdmin: true, created: true },
  });
  if (options.json) {
    run.say(JSON.stringify(users.map((user) => ({ ...user, created: user.created.toISOString() }))));
    return;
  }
  if (!users.length) return run.say(options.admins ? "no administrators yet" : "no users yet");
  const rows = [["ID", "USERNAME", "ADMIN", "EMAIL", "NAME"], ...users.map((user) => [String(user.id), user.username, user.isAdmin ? "yes" : "", user.email, user.name])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) run.say(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd());
}
