import { registerActivitySource } from "../activity/sources.js";

/** A created blog entry in the activity feed (src/activity/sources.ts): to its scope and its author, as far as they may read it, as long as they may. */
registerActivitySource({
  types: ["blog.entryCreated"],
  describe: (event) => `Blog entry created: ${String(event.payload.title ?? event.recordId)}`,
  // The window's opening and closing too: an entry scheduled for later reaches the site when it opens.
  follows: { types: ["blog.entryUpdated", "blog.entryDeleted", "blog.windowOpened", "blog.windowClosed"] },
});
