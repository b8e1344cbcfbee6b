import { ANNOUNCEMENTS } from "../../announcements/area.js";
import { declaredAreaPlugin, defineGroupPlugin } from "../plugins.js";

/** The group's announcements (the original's only group plugin): reachable through the group only. */
defineGroupPlugin(
  declaredAreaPlugin(ANNOUNCEMENTS, {
    name: "announcements",
    plural: "Announcements",
    noun: "announcement",
    rest: { selection: "...AnnouncementRest", list: { key: "announcements", extra: { success: true } } },
  }),
);
