import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { backgroundSqlOf } from "../db/sql.js";
import { anonymous, createContext } from "../common/context.js";
import type { Config } from "../config.js";
import { outboxWritten } from "../common/outbox.js";
import { appendWindowEvents } from "../common/write-events.js";
import { NOW } from "../common/write-statements.js";
import { everyWrittenRecords } from "../common/written-records.js";

/**
 * The events no request makes: a published record's publishing window opening or closing (`<area>.windowOpened`,
 * `<area>.windowClosed`, docs/events.md). Every `WINDOW_CHECK_MS` a server looks at the moments since the last
 * look, in one transaction holding the schedule's row (FOR UPDATE SKIP LOCKED): with N instances each
 * moment is looked at by one, and a crash before the commit leaves it to the next look. The first look
 * starts from its own time (windows that passed before the feature existed make no events).
 */
export const WINDOW_CHECK_MS = 10_000;
const SCHEDULE = "publishing-windows";

/** One look: appends the events of the windows that opened or closed since the last, and answers how many. */
export async function checkWindows(db: PrismaClient, config: Config): Promise<number> {
  const sql = backgroundSqlOf(db);
  await sql.query(Prisma.sql`INSERT INTO outbox_schedules (name, checked_until) VALUES (${SCHEDULE}, ${NOW}) ON CONFLICT (name) DO NOTHING`);
  const appended = await sql.transaction(async (client) => {
    const [held] = await client.query<{ from: string }>(Prisma.sql`SELECT checked_until::text AS "from" FROM outbox_schedules WHERE name = ${SCHEDULE} FOR UPDATE SKIP LOCKED`);
    if (!held) return 0;
    const tx = Object.assign(createContext(db, anonymous, config), { tx: client });
    const from = Prisma.sql`${held.from}::timestamp(3)`;
    let total = 0;
    for (const written of everyWrittenRecords()) total += await appendWindowEvents(tx, written, from, NOW);
    await client.query(Prisma.sql`UPDATE outbox_schedules SET checked_until = ${NOW} WHERE name = ${SCHEDULE}`);
    return total;
  });
  if (appended) outboxWritten(db);
  return appended;
}

/** Looks every `intervalMs` until stopped; a failed look is logged and the next covers its moments. */
export function watchWindows(db: PrismaClient, config: Config, log: (line: string, error?: unknown) => void, intervalMs = WINDOW_CHECK_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    checkWindows(db, config)
      .catch((error) => log("checking publishing windows failed", error))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
