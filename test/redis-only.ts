import net from "node:net";
import { describe } from "vitest";
import { createClient } from "redis";

/**
 * Tests that need the local Redis (127.0.0.1:6379, REDIS_URL's tests): without it they print one line
 * saying what was skipped, never skip silently (as test/postgres-only.ts does for PostgreSQL).
 */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/** Whether the local Redis answers PING within a second. */
function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(6379, "127.0.0.1");
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

export const redisReachable = await redisAnswers();

/** A suite that needs the local Redis; without it, it prints its skip line and is skipped. */
export function describeWithRedis(title: string, body: () => void): void {
  if (!redisReachable) console.log(`skipped: "${title}" needs Redis at 127.0.0.1:6379 (not reachable)`);
  describe.skipIf(!redisReachable)(title, body);
}

/** The keys under `prefix` in the local Redis (a test's own, by its unique prefix). */
export async function redisKeys(prefix: string): Promise<string[]> {
  const redis = createClient({ url: LOCAL_REDIS_URL });
  await redis.connect();
  try {
    const keys: string[] = [];
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...batch);
    return keys;
  } finally {
    await redis.close();
  }
}

/** Deletes a test run's keys (its unique prefix), so nothing is left in the shared Redis. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const keys = await redisKeys(prefix);
  if (!keys.length) return;
  const redis = createClient({ url: LOCAL_REDIS_URL });
  await redis.connect();
  await redis.del(keys);
  await redis.close();
}
