import { expect } from "vitest";
import type { SubscriptionHub } from "../src/events/subscriptions.js";
import { sseData } from "./sse-messages.js";

/** An open GraphQL subscription over SSE: what it has received so far (each with when), until closed. */
export interface SseSubscription<T> {
  /** Each message's `data`'s first field (the subscription's payload), in order. */
  events: T[];
  /** `performance.now()` when each of `events` arrived. */
  receivedAt: number[];
  errors: unknown[];
  status: number;
  close(): Promise<void>;
}

/**
 * Opens a subscription at `url`/graphql (POST, Accept: text/event-stream, graphql-yoga's SSE) and collects
 * its messages. Resolves once `hub` (the answering server's, src/events/subscriptions.ts) holds it, or it
 * was refused with an error, or after 2 s.
 */
export async function subscribeOverSse<T>(
  url: string,
  hub: SubscriptionHub,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
  /** `lastEventId`: a reconnecting client's Last-Event-ID header; `headers`: more headers (a session's cookie and CSRF token). */
  options: { lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseSubscription<T>> {
  const controller = new AbortController();
  const opened = hub.size;
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.lastEventId ? { "last-event-id": options.lastEventId } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    // Refused before any stream began (a session's missing CSRF token: 403 with a JSON error).
    const body = (await response.json().catch(() => ({}))) as { errors?: unknown[]; message?: string };
    return { events: [], receivedAt: [], errors: body.errors ?? [body], status: response.status, close: async () => {} };
  }
  const events: T[] = [];
  const receivedAt: number[] = [];
  const errors: unknown[] = [];
  const reading = (async () => {
    try {
      for await (const parsed of sseData<{ data?: Record<string, T>; errors?: unknown[] }>(response.body as unknown as AsyncIterable<Uint8Array>)) {
        if (parsed.errors) errors.push(...parsed.errors);
        if (parsed.data) {
          events.push(Object.values(parsed.data)[0]!);
          receivedAt.push(performance.now());
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  // The subscription is registered once the server has run its `subscribe`.
  for (let waited = 0; hub.size <= opened && waited < 2000 && !errors.length; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    events,
    receivedAt,
    errors,
    status: response.status,
    async close() {
      controller.abort();
      await reading;
    },
  };
}
