import { WIKI } from "../../wiki/area.js";
import { declaredAreaPlugin, defineGroupPlugin } from "../plugins.js";

/** The group's wiki: /groups/{group}/wiki, answering as /wiki does (a page with its current text and revision). */
defineGroupPlugin(
  declaredAreaPlugin(WIKI, {
    name: "wiki",
    plural: "WikiPages",
    noun: "wiki page",
    rest: { selection: "...WikiPageRest pagetext version { ...WikiRevisionRest }", list: { key: "pages" }, createExcept: ["summary"] },
  }),
);
