import { runCli } from "./program.js";

// The hubgraph command (`npm run cli -- …`, or the package's `hubgraph` bin).
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: process.stdin,
  env: process.env,
});
