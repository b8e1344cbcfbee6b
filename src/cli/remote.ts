import type { Readable } from "node:stream";
import { CLI_PATH, readCliAccess } from "./local-access.js";

/**
 * Runs a command line inside the server that holds the embedded database (src/cli/local-access.ts), with
 * its output streamed back as it is written. Resolves to the exit code, or null when no server is there
 * (no access file, or nothing answers at its address: a server that crashed), so the caller opens the
 * database itself. Loads nothing of the server: a command costs a process start and one request.
 */
export async function runThroughServer(argv: string[], io: { stdout(text: string): void; stderr(text: string): void; stdin: Readable }, dataDir: string): Promise<number | null> {
  const access = readCliAccess(dataDir);
  if (!access) return null;
  // --password-stdin reads the first line here; the command runs where there is no terminal.
  const stdin = argv.includes("--password-stdin") ? await firstLine(io.stdin) : "";
  let response: Response;
  try {
    response = await fetch(new URL(CLI_PATH, access.url), {
      method: "POST",
      headers: { authorization: `Bearer ${access.token}`, "content-type": "application/json" },
      body: JSON.stringify({ argv, stdin }),
    });
  } catch {
    return null;
  }
  if (response.status !== 200 || !response.body) {
    io.stderr(`error: the server at ${access.url} refused the command (${response.status}); stop it to use the database directly\n`);
    return 1;
  }
  // One JSON object per line: {"stdout"}, {"stderr"}, then {"exit"}.
  let exit = 1;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffered.slice(0, newline)) as { stdout?: string; stderr?: string; exit?: number };
      buffered = buffered.slice(newline + 1);
      if (message.stdout !== undefined) io.stdout(message.stdout);
      if (message.stderr !== undefined) io.stderr(message.stderr);
      if (message.exit !== undefined) exit = message.exit;
    }
  }
  return exit;
}

async function firstLine(stdin: Readable): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    if (text.includes("\n")) break;
  }
  return `${text.split(/\r?\n/)[0] ?? ""}\n`;
}
