import { Prisma } from "../src/generated/prisma/client.js";
import type { SqlClient } from "../src/db/sql.js";
import { RUNNING_HERE_FROM } from "../src/common/outbox.js";

/**
 * Waits until every event in the outbox is readable (`readCommittedEvents`): a transaction of this database
 * still open (a write the server has answered but a consumer still runs) holds readers back for a moment
 * (docs/events.md, "Reading without skipping"), and a reader waits for it, as the dispatcher does.
 */
export async function allEventsReadable(sql: SqlClient, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); ; ) {
    const [row] = await sql.query<{ ready: boolean }>(
      Prisma.sql`SELECT COALESCE(max(xid) < ${RUNNING_HERE_FROM}, true) AS ready FROM outbox`,
    );
    if (row!.ready) return;
    if (Date.now() - started > timeoutMs) throw new Error(`an outbox event stayed unreadable for ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
