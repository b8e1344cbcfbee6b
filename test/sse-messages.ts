/**
 * The `data` of each message of a `text/event-stream` body (graphql-yoga's SSE), JSON-parsed, as it arrives;
 * messages without data (keep-alive comments, `event: complete`) are skipped. No vitest here: the events
 * bench (bench/events.ts) reads its subscriptions with it too.
 */
export async function* sseData<T = unknown>(body: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const message = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // A message's data lines join with newlines (the SSE rule).
      const data = message.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).join("\n");
      if (data.trim()) yield JSON.parse(data) as T;
    }
  }
}
