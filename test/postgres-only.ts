import { describe, type TestContext } from "vitest";

/**
 * Tests that need PostgreSQL (DATABASE_URL set): on PGlite they print one line saying what was skipped and
 * why, never skip silently. In a test:
 *
 *   it("…", async (context) => {
 *     skipUnlessPostgres(context, "a delete in another transaction at the same time", "PGlite runs one transaction at a time");
 *
 * and for a whole suite (its hooks start PostgreSQL-only servers): describeOnPostgres(title, why, () => { … }).
 */
export const onPostgres = Boolean(process.env.DATABASE_URL);

const skippedLine = (what: string, why?: string) => `skipped: ${what} needs PostgreSQL${why ? ` (${why})` : ""}`;

/** Skips the running test on PGlite, with a line saying so. */
export function skipUnlessPostgres(context: TestContext, what: string, why?: string): void {
  if (onPostgres) return;
  console.log(skippedLine(what, why));
  context.skip(skippedLine(what, why));
}

/** A suite that runs on PostgreSQL only; on PGlite it prints its skip line and is skipped. */
export function describeOnPostgres(title: string, why: string, body: () => void): void {
  if (!onPostgres) console.log(skippedLine(`"${title}"`, why));
  describe.skipIf(!onPostgres)(title, body);
}
