import { registerActivitySource } from "../activity/sources.js";

/** A created citation in the activity feed (src/activity/sources.ts): to the site when public, and its author, as long as they may read it. */
registerActivitySource({
  types: ["citations.citationCreated"],
  describe: (event) => `Citation added: ${String(event.payload.title ?? event.recordId)}`,
  follows: { types: ["citations.citationUpdated", "citations.citationDeleted"] },
});
