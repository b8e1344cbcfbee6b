import type { Readable } from "node:stream";
import type { Config } from "../config.js";
import { createContext, type RequestContext, type Viewer } from "../common/context.js";
import type { Database } from "../db/database.js";
import type { User } from "../generated/prisma/client.js";
import { ApiError } from "../common/errors.js";
import { databaseFailure } from "../common/database-errors.js";
// The CLI calls services without the GraphQL schema (src/areas.ts): the scope kinds register here.
import "../scope-kinds.js";

/** Exit codes: 0 done, 1 the command failed (a value refused included), 2 the command line could not be read. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A failure the user can act on; its message is printed as is. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

/** "1 wiki page", "2 wiki pages". */
export const counted = (count: number | bigint, singular: string, plural = `${singular}s`) => `${count} ${count == 1 ? singular : plural}`;

/** Where a command writes and what it reads; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
}

/** What every command gets: the database (opened like the server opens it), the configuration, the output. */
export interface CliRun {
  db: Database;
  config: Config;
  io: CliIo;
  /** Prints one line on stdout. */
  say(line: string): void;
}

/** A service context acting as `user`, so the services' own rules decide what it may do. */
export function contextAs(run: CliRun, user: Pick<User, "id" | "username" | "isAdmin">): RequestContext {
  const viewer: Viewer = { user: { id: user.id, username: user.username, isAdmin: user.isAdmin }, via: "token" };
  return createContext(run.db.prisma, viewer, run.config);
}

/**
 * The operator at the console: an administrator that is no account (id 0). Used where the services
 * need only administrator rights, e.g. creating accounts; content always gets a real author.
 */
export const operatorContext = (run: CliRun) => contextAs(run, { id: 0, username: "hubgraph-cli", isAdmin: true });

export async function findUserOrFail(run: CliRun, username: string): Promise<User> {
  const user = await run.db.prisma.user.findUnique({ where: { username } });
  if (!user) throw new CliError(`no user named "${username}"`);
  return user;
}

/**
 * A service error in command-line terms: the services name their input fields (`email`, `scopeId`); this
 * names the argument or option that carried it. Always a failure (1): the command line was read, and the
 * service refused what it said (a weak password, a private URL). 2 is for a command line that cannot be
 * read (an unknown command or option, a missing argument, options that do not go together; docs/decisions.md, "CLI").
 */
export function fromServiceError(error: ApiError, argumentNames: Record<string, string> = {}): CliError {
  if (error.status !== 400 || !error.problems.length) return new CliError(error.message, EXIT.failure);
  const problems = error.problems.map((problem) => `${argumentNames[problem.parameter] ?? problem.parameter} ${problem.message}`);
  return new CliError(problems.join("; "), EXIT.failure);
}

/** Runs a service call, turning its errors into CliErrors that name this command's arguments. */
export async function service<T>(call: Promise<T>, argumentNames: Record<string, string> = {}): Promise<T> {
  try {
    return await call;
  } catch (error) {
    // A database busy or lost during a commit (src/db names no status) is the ApiError it is answered with.
    const failure = error instanceof ApiError ? error : databaseFailure(error);
    if (failure) throw fromServiceError(failure, argumentNames);
    throw error;
  }
}

/** The first line of standard input (for --password-stdin), without its line break. */
export async function readFirstLine(stdin: Readable): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}
