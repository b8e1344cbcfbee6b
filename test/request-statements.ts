import { BACKGROUND_MARK } from "../src/db/sql.js";
import type { Database } from "../src/db/database.js";

/** The statement that looks up a bearer token (src/auth/http.ts, bearerOf). */
export const BEARER_LOOKUP = /FROM oauth_tokens t JOIN users u/;

/** A statement as it was sent: its text (`$n` placeholders) and values. */
export interface SentStatement {
  text: string;
  values: unknown[];
}

/**
 * The statements `run` makes the app send, with their values (the statement counts of the tests, the plan
 * test of the thread read, and the bench's bare handlers replaying ours: bench/capture.ts). Not the bearer
 * token's lookup: whether a request sends it depends on what the bearer cache holds (src/auth/bearer-cache.ts;
 * test/bearer-cache.test.ts counts it). Nor the statements of background work (the outbox dispatcher a write
 * wakes, src/db/sql.ts).
 */
export async function recordStatements<T>(db: Database, run: () => Promise<T>): Promise<{ result: T; statements: SentStatement[] }> {
  const statements: SentStatement[] = [];
  const stop = db.onQuery((text, values) => {
    if (!BEARER_LOOKUP.test(text) && !text.startsWith(BACKGROUND_MARK)) statements.push({ text, values: [...(values ?? [])] });
  });
  try {
    return { result: await run(), statements };
  } finally {
    stop();
  }
}
