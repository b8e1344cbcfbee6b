import { AnnouncementType } from "../../announcements/graphql.js";
import {
  ANNOUNCEMENTS_FIELDS,
  ANNOUNCEMENTS_LIST,
  createAnnouncement,
  deleteAnnouncement,
  getAnnouncement,
  listAnnouncements,
  updateAnnouncement,
} from "../../announcements/service.js";
import { defineGroupPlugin } from "../plugins.js";

/** The group's announcements (the original's only group plugin): reachable through the group only. */
defineGroupPlugin({
  name: "announcements",
  area: "announcements",
  model: "Announcement",
  plural: "Announcements",
  type: AnnouncementType,
  noun: "announcement",
  fields: ANNOUNCEMENTS_FIELDS,
  service: {
    list: { spec: ANNOUNCEMENTS_LIST, resolve: listAnnouncements },
    read: getAnnouncement,
    create: createAnnouncement,
    update: updateAnnouncement,
    remove: deleteAnnouncement,
  },
  rest: { selection: "...AnnouncementRest", documents: "announcements", list: { key: "announcements", extra: { success: true } } },
});
