// The servers under load run as child processes of their own, so the load generator's CPU and memory
// are not theirs, and the Hubgraph server's resident set size is its own.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  logPath: string;
  /** Resident set size now and at its peak, in MB (Linux /proc); null where that cannot be read. */
  memory(): { rssMb: number; peakMb: number } | null;
  /** CPU time (user + system, all threads) the process has used so far, in ms (Linux /proc); null elsewhere. */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/** USER_HZ: 100 on every Linux build that matters here (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts `node <nodeArguments>` with PORT set, its output going to `logPath`, and waits until
 * GET /ready answers 200.
 */
export async function startChildServer(options: {
  name: string;
  nodeArguments: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  logPath: string;
  readyTimeoutMs?: number;
}): Promise<ChildServer> {
  const port = await freePort();
  const log = fs.openSync(options.logPath, "w");
  const child: ChildProcess = spawn(process.execPath, options.nodeArguments, {
    cwd: options.cwd,
    env: { ...options.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));

  const url = `http://127.0.0.1:${port}`;
  const logTail = () => fs.readFileSync(options.logPath, "utf8").split("\n").slice(-30).join("\n");
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (!running) throw new Error(`${options.name} exited before it was ready; the end of ${options.logPath}:\n${logTail()}`);
    const ready = await fetch(`${url}/ready`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${options.name} was not ready after ${(options.readyTimeoutMs ?? 120_000) / 1000} s; the end of ${options.logPath}:\n${logTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  return {
    name: options.name,
    url,
    pid: child.pid!,
    logPath: options.logPath,
    memory() {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
        const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
        return { rssMb: kilobytes("VmRSS") / 1024, peakMb: kilobytes("VmHWM") / 1024 };
      } catch {
        return null;
      }
    },
    cpuMs() {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat, counted after the ")" that ends the command name.
        const fields = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
      } catch {
        return null;
      }
    },
    async stop() {
      if (!running) return;
      // The Hubgraph server gives running requests 10 s on SIGTERM; after 15 s it is killed outright.
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * The node arguments of `npm start` (package.json: `exec node <arguments>`), so the bench runs the server
 * exactly as production does — compiled JavaScript in dist/, the same node flags — without npm and a shell
 * in between (the measured CPU and RSS are the server's own).
 */
export function productionStartArguments(packageJson: { scripts?: Record<string, string> }): string[] {
  const start = packageJson.scripts?.start ?? "";
  const match = /^(?:exec\s+)?node\s+(.+)$/.exec(start.trim());
  if (!match || /[|&;<>$`"']/.test(match[1]!)) {
    throw new Error(`package.json's start script must be "exec node <arguments>" for the bench to run it directly, got "${start}"`);
  }
  return match[1]!.split(/\s+/);
}

/**
 * The entry file of a peer server (bench/peers/<name>/server.mjs), its dependencies installed first from
 * its own lockfile when they are not yet: peers are the bench's alone, so the app's `npm ci` never
 * downloads them.
 */
export function installedPeer(root: string, name: string): string {
  const folder = path.join(root, "bench", "peers", name);
  if (!fs.existsSync(path.join(folder, "node_modules"))) {
    console.log(`Installing the ${name} peer (npm ci in ${path.relative(root, folder)})…`);
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: folder, stdio: ["ignore", "inherit", "inherit"] });
  }
  return path.join(folder, "server.mjs");
}
