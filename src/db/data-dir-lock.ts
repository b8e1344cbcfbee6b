import path from "node:path";
import lockfile from "proper-lockfile";
import { StartupError } from "../config.js";

/** How long a lock survives its holder: a server killed without cleaning up blocks a restart this long. */
const STALE_AFTER_MS = 10_000;

/**
 * Takes the DATA_DIR lock so one embedded database has one server: a second server on the same folder
 * would answer too and silently lose the other's writes. The lock is a directory (`hubgraph.lock`)
 * whose modification time the holder refreshes; it is released on close and on any process exit, and
 * counts as abandoned STALE_AFTER_MS after its last refresh (a crashed or killed server).
 *
 * Resolves to the function that releases it. `onLost` runs if another process takes the lock over
 * (after this one stopped refreshing it for longer than the stale period) — this server must stop then.
 */
export async function lockDataDir(dataDir: string, onLost: (error: Error) => void = (error) => { throw error; }): Promise<() => Promise<void>> {
  const lockfilePath = path.join(dataDir, "hubgraph.lock");
  try {
    return await lockfile.lock(dataDir, { lockfilePath, stale: STALE_AFTER_MS, realpath: false, onCompromised: onLost });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    throw new StartupError(
      `DATA_DIR ${dataDir} is in use by another Hubgraph server (lock ${lockfilePath}). ` +
        `Stop that server, or give this one another DATA_DIR; a lock left by a server that crashed expires ${STALE_AFTER_MS / 1000} s after it stopped.`,
    );
  }
}
