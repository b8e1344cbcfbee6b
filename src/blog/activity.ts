import { registerActivitySource } from "../activity/sources.js";

/** A created blog entry in the activity feed (src/activity/sources.ts): to its scope and its author, as far as they may read it. */
registerActivitySource({
  types: ["blog.entryCreated"],
  describe: (event) => `Blog entry created: ${String(event.payload.title ?? event.recordId)}`,
});
