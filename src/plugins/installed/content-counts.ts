import { anonymous, createContext } from "../../common/context.js";
import { BLOG } from "../../blog/area.js";
import { CITATIONS } from "../../citations/area.js";
import { GROUP_AREA } from "../../groups/area.js";
import { WIKI } from "../../wiki/area.js";
import { definePlugin } from "../registry.js";

/**
 * content/counts: the public trigger event `content.counts`, answering how much the site holds as anyone
 * may see it — the totals of the site-wide lists for an anonymous caller (the lists' own counters, no
 * COUNT(*)), whoever fires it, so it says nothing about records only some may see.
 */
export default definePlugin({
  folder: "content",
  element: "counts",
  name: "Site content counts",
  triggers: {
    counts: {
      access: "public",
      description: "The numbers of public wiki pages, blog entries, citations and groups of the site.",
      async run({ ctx }) {
        const asAnyone = createContext(ctx.db, anonymous, ctx.config);
        const [wiki, blog, citations, groups] = await Promise.all(
          [WIKI.listRecords, BLOG.listRecords, CITATIONS.listRecords, GROUP_AREA.listRecords].map((list) => list(asAnyone, { limit: 1 }).total()),
        );
        return { wiki, blog, citations, groups };
      },
    },
  },
});
