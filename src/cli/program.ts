import fs from "node:fs/promises";
import { Command, CommanderError, Option } from "commander";
import { loadConfig, type Config } from "../config.js";
import { PACKAGE } from "../version.js";
import type { Database } from "../db/database.js";
import { CliError, EXIT, counted, usageError, type CliIo, type CliRun } from "./context.js";

/**
 * A command loaded when it runs, not to parse a command line (the commands load the services, the
 * database and the password policy's dictionaries): --help and --version answer at once.
 */
function later<A extends unknown[]>(load: () => Promise<(run: CliRun, ...args: A) => Promise<void>>) {
  return async (run: CliRun, ...args: A) => (await load())(run, ...args);
}

export interface CliOptions {
  /** An open database to use instead of opening the configured one (tests share the test server's; the server its own). */
  database?: Database;
  /** The configuration to use instead of reading io.env (the server's own, when a command runs inside it). */
  config?: Config;
}

const DATABASE_NOTE = `
The database is the server's: DATABASE_URL (postgres://…) or the embedded one in DATA_DIR (default ./data),
migrated on open like the server does. While a server holds the embedded database, commands run inside
that server (found through DATA_DIR/cli-access.json, readable by its owner only).`;

/**
 * Runs one command line (without the program name) and returns the exit code: 0 done, 1 the command
 * failed, 2 the command line was wrong. Never calls process.exit, so tests can run it in-process.
 */
export async function runCli(argv: string[], io: CliIo, options: CliOptions = {}): Promise<number> {
  let migrationLog: ((line: string) => void) | undefined;

  /** Opens the database (or borrows the given one) for one command, and closes what it opened. */
  const withDatabase =
    <A extends unknown[]>(command: (run: CliRun, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const config = options.config ?? loadConfig(io.env);
      const db = options.database ?? (await (await import("../db/database.js")).openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, cacheDir: config.cacheDir, log: migrationLog }));
      try {
        await command({ db, config, io, say: (line) => io.stdout(`${line}\n`) }, ...args);
      } finally {
        if (!options.database) await db.close();
      }
    };

  const program = new Command("hubgraph")
    .description("Hubgraph administration: accounts, tokens, OAuth clients, webhooks, demo content and migrations.")
    .version(PACKAGE.version, "-V, --version", "print the version")
    .addHelpText("after", DATABASE_NOTE)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showSuggestionAfterError()
    .showHelpAfterError("(add --help for usage)");

  const user = program.command("user").description("create, promote, list accounts and reset passwords");
  user
    .command("create")
    .description("create an account (without a password option, one is generated and printed)")
    .argument("<username>", "2 to 64 letters, digits, dots, dashes or underscores")
    .requiredOption("--email <address>", "e-mail address")
    .option("--name <name>", "display name (default: the username)")
    .option("--admin", "make it an administrator")
    .option("--password <password>", "password, at least 8 characters (visible in the process list: prefer --password-stdin)")
    .option("--password-stdin", "read the password from the first line of standard input")
    .action(withDatabase(later(async () => (await import("./users.js")).createUserCommand)));
  user
    .command("promote")
    .description("make an account an administrator")
    .argument("<username>")
    .action(withDatabase(async (run, username: string) => (await import("./users.js")).setAdministratorCommand(run, username, true)));
  user
    .command("demote")
    .description("take administrator rights away from an account")
    .argument("<username>")
    .action(withDatabase(async (run, username: string) => (await import("./users.js")).setAdministratorCommand(run, username, false)));
  user
    .command("reset-password")
    .description("set a new password (generated and printed unless given) and end the account's sessions and tokens")
    .argument("<username>")
    .option("--password <password>", "the new password, at least 8 characters")
    .option("--password-stdin", "read the new password from the first line of standard input")
    .action(withDatabase(later(async () => (await import("./users.js")).resetPasswordCommand)));
  user
    .command("list")
    .description("list accounts")
    .option("--admins", "administrators only")
    .option("--json", "one JSON array instead of a table")
    .action(withDatabase(later(async () => (await import("./users.js")).listUsersCommand)));

  const token = program.command("token").description("issue and revoke bearer tokens");
  token
    .command("issue")
    .description("print a new bearer token for an account (no password needed; stdout carries only the token)")
    .argument("<username>")
    .option("--ttl <seconds>", "lifetime in seconds, at most a year (default: ACCESS_TOKEN_TTL, 3600)")
    .action(withDatabase(later(async () => (await import("./tokens.js")).issueTokenCommand)));
  token
    .command("revoke")
    .description("revoke one access or refresh token (its pair goes too), or every token of an account")
    .argument("[token]", "the token itself, as the token endpoint or `token issue` gave it")
    .option("--user <username>", "revoke every token of this account instead")
    .option("--sessions", "with --user: end the account's cookie sessions too")
    // A token is base64url, so one in 64 begins with "-": taken as the argument, not refused as an unknown option.
    .allowUnknownOption()
    .action(withDatabase(later(async () => (await import("./tokens.js")).revokeTokenCommand)));

  const client = program.command("client").description("OAuth clients");
  client
    .command("register")
    .description("register a confidential OAuth client; prints its id and its secret (shown once)")
    .argument("<name>", "a name for the application")
    .requiredOption("--owner <username>", "the account the client's client_credentials tokens act as")
    .action(withDatabase(later(async () => (await import("./tokens.js")).registerClientCommand)));

  const webhooks = program.command("webhooks").description("webhook endpoints: register, list, delete, enable, rotate their secret; their deliveries and replays");
  webhooks
    .command("create")
    .description("register an endpoint for events (site-wide, or a group's with --group and --owner); prints its secret, shown once")
    .argument("<url>", "http or https URL reaching a public address (WEBHOOK_ALLOWED_ADDRESSES excepted)")
    .requiredOption("--events <types>", "comma-separated event types (wiki.pageCreated,groups.memberJoined; docs/events.md)")
    .option("--group <id>", "a group's endpoint: its events only")
    .option("--owner <username>", "with --group: the manager it belongs to (it receives what they may read)")
    .option("--description <text>", "what it is for")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).createWebhookCommand)));
  webhooks
    .command("list")
    .description("list endpoints")
    .option("--group <id>", "a group's endpoints only")
    .option("--json", "one JSON array instead of a table")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).listWebhooksCommand)));
  webhooks
    .command("rotate-secret")
    .description("give an endpoint a new signing secret (printed once); the old one stops at once")
    .argument("<id>")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).rotateSecretCommand)));
  webhooks
    .command("delete")
    .description("delete an endpoint with its deliveries")
    .argument("<id>")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).deleteWebhookCommand)));
  webhooks
    .command("enable")
    .description("enable an endpoint again (disabled after failures or by hand)")
    .argument("<id>")
    .action(withDatabase(async (run, id: string) => (await import("./webhooks.js")).enableWebhookCommand(run, id, true)));
  webhooks
    .command("disable")
    .description("stop sending to an endpoint (and queueing for it) until enabled again")
    .argument("<id>")
    .action(withDatabase(async (run, id: string) => (await import("./webhooks.js")).enableWebhookCommand(run, id, false)));
  webhooks
    .command("deliveries")
    .description("an endpoint's deliveries, newest first, with their state and last answer")
    .argument("<endpoint-id>")
    .option("--state <state>", "pending, delivered or failed")
    .option("--limit <n>", "how many (default 25, at most 100)")
    .option("--json", "one JSON array, with every delivery's attempts, instead of a table")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).listDeliveriesCommand)));
  webhooks
    .command("replay")
    .description("send a delivery again now, with the same webhook-id and body")
    .argument("<delivery-id>")
    .action(withDatabase(later(async () => (await import("./webhooks.js")).replayWebhookCommand)));

  program
    .command("seed")
    .description("add demo content: accounts, a group, wiki pages with revisions, blog entries (running it again adds nothing)")
    .addOption(new Option("--demo", "the demo data set (the only one so far; required)"))
    .option("--password <password>", "password for the demo accounts (default: generated and printed)")
    .action(
      withDatabase(async (run, seedOptions: { demo?: boolean; password?: string }) => {
        if (!seedOptions.demo) throw usageError("say which data to add: seed --demo");
        await (await import("./seed.js")).seedCommand(run, seedOptions);
      }),
    );

  program
    .command("migrate")
    .description("apply the database migrations that have not run yet (the server also does this on start)")
    .action(async () => {
      const applied: string[] = [];
      migrationLog = (line) => {
        // Other lines (a new database copied from the template, say) are said, not counted.
        if (line.startsWith("applying migration ")) applied.push(line);
        io.stdout(`${line}\n`);
      };
      await withDatabase(async (run) => {
        const [{ count }] = await run.db.prisma.$queryRaw<[{ count: bigint }]>`SELECT count(*) AS count FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
        run.say(applied.length ? `applied ${counted(applied.length, "migration")}; ${count} in all` : `the database is up to date (${counted(count, "migration")})`);
      })();
    });

  program
    .command("openapi")
    .description("write the OpenAPI 3.1 document the server serves at /api/openapi.json (needs no database)")
    .option("--out <file>", "write it to this file instead of standard output")
    .action(async (openapiOptions: { out?: string }) => {
      // Loaded here: building it loads the whole schema, which the other commands do not need.
      const { apiDocument } = await import("../api-docs/page.js");
      const text = `${JSON.stringify(apiDocument(), null, 2)}\n`;
      if (!openapiOptions.out) return void io.stdout(text);
      await fs.writeFile(openapiOptions.out, text);
      io.stdout(`wrote the OpenAPI document to ${openapiOptions.out} (${counted(Object.keys(apiDocument().paths).length, "path")})\n`);
    });

  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    // Commander has already printed its own message (unknown command, missing argument, help).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failure;
  }
}
