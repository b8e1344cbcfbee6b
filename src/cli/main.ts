// The hubgraph command (`npm run cli -- …`, or the package's `hubgraph` bin).
import type { CliIo } from "./context.js";
import { runThroughServer } from "./remote.js";

// A reader that goes away (`hubgraph openapi | head`) ends the command quietly, as Unix tools do, instead
// of an EPIPE stack trace: the output is not wanted any more.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const io: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: process.stdin,
  env: process.env,
};
const argv = process.argv.slice(2);

// The embedded database with a server running: the command runs inside that server (it holds the
// folder). Read straight from the environment, without loading the configuration's checks: this path
// must stay fast.
// Commands that need no database run here, never in the server: `openapi --out file` writes where the
// caller stands (the server's working directory and user may be others), and help and the version need
// no round trip.
const needsNoDatabase = argv.length === 0 || ["openapi", "help", "--version", "-V"].includes(argv[0]!) || argv.includes("--help") || argv.includes("-h");
let code: number | null = null;
if (!process.env.DATABASE_URL && !needsNoDatabase) code = await runThroughServer(argv, io, process.env.DATA_DIR || "data");
if (code === null) {
  const { runCli } = await import("./program.js");
  code = await runCli(argv, io);
}
process.exitCode = code;
