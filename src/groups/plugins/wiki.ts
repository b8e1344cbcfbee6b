import { WikiPageType } from "../../wiki/graphql.js";
import { createWikiPage, deleteWikiPage, getWikiPage, listWikiPages, updateWikiPage, WIKI_FIELDS, WIKI_LIST } from "../../wiki/service.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's wiki: /groups/{group}/wiki, answering as /wiki does (a page with its current text and revision). */
defineGroupPlugin({
  name: "wiki",
  area: "wiki",
  model: "WikiPage",
  plural: "WikiPages",
  type: WikiPageType,
  noun: "wiki page",
  fields: WIKI_FIELDS,
  service: {
    list: { spec: WIKI_LIST, resolve: listWikiPages },
    read: getWikiPage,
    create: createWikiPage,
    update: updateWikiPage,
    remove: deleteWikiPage,
  },
  rest: {
    selection: "...WikiPageRest pagetext version { ...WikiRevisionRest }",
    documents: "wiki",
    list: { key: "pages" },
    createExcept: ["summary"],
  },
});
