import { WIKI } from "../../wiki/area.js";
import { areaType } from "../../graphql/area.js";
import { restFragmentText } from "../../../rest-facade/area-rows.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's wiki: /groups/{group}/wiki, answering as /wiki does (a page with its current text and revision). */
defineGroupPlugin({
  name: "wiki",
  area: "wiki",
  model: "WikiPage",
  plural: "WikiPages",
  type: areaType(WIKI),
  noun: "wiki page",
  fields: WIKI.table,
  service: {
    list: { spec: WIKI.listSpec, resolve: WIKI.listRecords },
    read: WIKI.readRecord,
    create: WIKI.createRecord,
    update: WIKI.updateRecord,
    remove: WIKI.removeRecord,
  },
  rest: {
    selection: "...WikiPageRest pagetext version { ...WikiRevisionRest }",
    documents: { fragments: restFragmentText(WIKI) },
    list: { key: "pages" },
    createExcept: ["summary"],
  },
});
