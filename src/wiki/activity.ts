import { registerActivitySource } from "../activity/sources.js";

/** A created page in the activity feed (src/activity/sources.ts): to its scope and its author, as far as they may read it, as long as they may. */
registerActivitySource({
  types: ["wiki.pageCreated"],
  describe: (event) => `Wiki page created: ${String(event.payload.title ?? event.payload.pagename ?? event.recordId)}`,
  follows: { types: ["wiki.pageUpdated", "wiki.pageDeleted"] },
});
