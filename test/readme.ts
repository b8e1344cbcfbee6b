// What the README tests share: its shell blocks, as written, and free ports; the children and clean-ups
// each test file registers and its afterAll ends (endChildrenAndCleanUp).
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { ChildProcess } from "node:child_process";

export const root = path.resolve(import.meta.dirname, "..");
export const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");

/** Every ```sh block of the section under `heading` (up to the next heading of its level), in order. */
export function sectionBlocks(heading: string): string[] {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const rest = readme.slice(at + heading.length + 1);
  const next = rest.search(new RegExp(`\n${level} `));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((found) => found[1]!);
}

/** The first ```sh block after the heading `heading`. */
export function shellBlock(heading: string): string {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error(`no sh block after ${heading}`);
  return block[1]!;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

export const children = new Set<ChildProcess>();
export const cleanUps: (() => Promise<void> | void)[] = [];
/** Each README test file's afterAll: kills what its tests left running and undoes what they made (a module is shared by the files of one worker). */
export async function endChildrenAndCleanUp(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  children.clear();
  for (const cleanUp of cleanUps.splice(0).reverse()) await cleanUp();
}

