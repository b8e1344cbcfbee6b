import { ANNOUNCEMENTS } from "../../announcements/area.js";
import { areaType } from "../../graphql/area.js";
import { restFragmentText } from "../../../rest-facade/area-rows.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's announcements (the original's only group plugin): reachable through the group only. */
defineGroupPlugin({
  name: "announcements",
  area: "announcements",
  model: "Announcement",
  plural: "Announcements",
  type: areaType(ANNOUNCEMENTS),
  noun: "announcement",
  fields: ANNOUNCEMENTS.table,
  service: {
    list: { spec: ANNOUNCEMENTS.listSpec, resolve: ANNOUNCEMENTS.listRecords },
    read: ANNOUNCEMENTS.readRecord,
    create: ANNOUNCEMENTS.createRecord,
    update: ANNOUNCEMENTS.updateRecord,
    remove: ANNOUNCEMENTS.removeRecord,
  },
  rest: { selection: "...AnnouncementRest", documents: { fragments: restFragmentText(ANNOUNCEMENTS) }, list: { key: "announcements", extra: { success: true } } },
});
