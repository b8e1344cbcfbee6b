import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * How the CLI reaches a server that holds the embedded database: the server writes DATA_DIR/cli-access.json
 * (mode 0600: only the account that runs it can read it) with its loopback URL and a random token, and
 * deletes it when it stops. Reading the file is the local authentication: whoever can read it can open the
 * database folder anyway. Commands then run inside the server, on its open database (POST /_cli).
 */

export const CLI_ACCESS_FILE = "cli-access.json";
export const CLI_PATH = "/_cli";

export interface CliAccess {
  url: string;
  token: string;
  pid: number;
}

export const cliAccessFileOf = (dataDir: string) => path.join(dataDir, CLI_ACCESS_FILE);

export const newCliToken = () => crypto.randomBytes(32).toString("base64url");

/** Writes the access file (owner-only from the moment it exists); returns the function that deletes it. */
export function publishCliAccess(dataDir: string, access: CliAccess): () => void {
  const file = cliAccessFileOf(dataDir);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, JSON.stringify(access), { mode: 0o600, flag: "wx" });
  return () => {
    // Only our own: a server started after this one on the same folder (after a lost lock) wrote its own.
    try {
      if ((JSON.parse(fs.readFileSync(file, "utf8")) as CliAccess).token === access.token) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

export function readCliAccess(dataDir: string): CliAccess | null {
  try {
    const access = JSON.parse(fs.readFileSync(cliAccessFileOf(dataDir), "utf8")) as CliAccess;
    return typeof access.url === "string" && typeof access.token === "string" ? access : null;
  } catch {
    return null;
  }
}
