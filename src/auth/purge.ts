import type { PrismaClient } from "../generated/prisma/client.js";
import { deletePastDayCounts } from "../common/counted-totals.js";
import { deleteExpiredIdempotencyKeys } from "../execution/conditions.js";
import { purgeDeliveredEvents } from "../events/dispatcher.js";
import { purgeWebhookDeliveries } from "../webhooks/delivery.js";

/**
 * Deletes credentials that can no longer do anything: cookie sessions past their expiry, and token rows
 * whose access token has expired and whose refresh token (if any) has too. Spent refresh tokens are kept
 * until they expire so that a replay is still recognised (src/auth/oauth.ts), and go then. Nothing else
 * ever deleted these rows: a session was removed only when its cookie came back after expiry.
 */
export async function purgeExpiredCredentials(db: PrismaClient, now = new Date()): Promise<{ sessions: number; tokens: number }> {
  const sessions = await db.session.deleteMany({ where: { expiresAt: { lte: now } } });
  const tokens = await db.oAuthToken.deleteMany({
    where: { accessTokenExpiresAt: { lte: now }, OR: [{ refreshTokenExpiresAt: null }, { refreshTokenExpiresAt: { lte: now } }] },
  });
  // A refresh's sealed pair is for retries within REFRESH_TOKEN_GRACE (300 s at most); after that it goes.
  await db.oAuthToken.updateMany({ where: { graceSealed: { not: null }, rotatedAt: { lte: new Date(now.getTime() - 300_000) } }, data: { graceSealed: null } });
  return { sessions: sessions.count, tokens: tokens.count };
}

/**
 * Runs the purge every `intervalSeconds` (0: never) until stopped: expired credentials, and the day
 * buckets of list totals that no total reads any more (`deletePastDayCounts`), Idempotency-Keys past their day, and
 * outbox events every consumer has taken, past their retention (`purgeDeliveredEvents`), and webhook deliveries delivered or failed
 * before WEBHOOK_RETENTION_HOURS with their attempts (`purgeWebhookDeliveries`). The timer does not keep the
 * process alive, and a failed purge is logged and tried again next time.
 */
export function schedulePurge(
  db: PrismaClient,
  intervalSeconds: number,
  log: (line: string, error?: unknown) => void,
  options: { outboxRetentionHours?: number; webhookRetentionHours?: number } = {},
): () => Promise<unknown> {
  if (intervalSeconds === 0) return async () => {};
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = Promise.all([
      purgeExpiredCredentials(db).then(
        ({ sessions, tokens }) => (sessions || tokens) && log(`purged ${sessions} expired sessions and ${tokens} expired tokens`),
        (error) => log("purging expired sessions and tokens failed", error),
      ),
      deletePastDayCounts(db).catch((error) => log("deleting the day counts of past days failed", error)),
      deleteExpiredIdempotencyKeys(db).catch((error) => log("deleting expired Idempotency-Keys failed", error)),
      options.outboxRetentionHours === undefined
        ? null
        : purgeDeliveredEvents(db, options.outboxRetentionHours).then(
            ({ abandoned }) =>
              abandoned.length &&
              log(
                `outbox consumers ${abandoned.join(", ")} have not moved for longer than the retention and no longer hold events back (removed from the code?); ` +
                  `DELETE FROM outbox_consumers WHERE name = '…' forgets one`,
              ),
            (error) => log("deleting delivered outbox events failed", error),
          ),
      options.webhookRetentionHours === undefined
        ? null
        : purgeWebhookDeliveries(db, options.webhookRetentionHours).catch((error) => log("deleting finished webhook deliveries failed", error)),
    ]);
  }, intervalSeconds * 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    return running;
  };
}
