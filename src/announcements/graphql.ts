import { builder } from "../graphql/builder.js";
import { accessEnum } from "../graphql/access.js";
import { PUBLISH_STATE } from "../common/access.js";
import { ANNOUNCEMENTS_ACCESS } from "./service.js";

const AnnouncementAccess = accessEnum(ANNOUNCEMENTS_ACCESS);

/**
 * An announcement of a group. No root fields of its own: announcements are read and written through
 * their group only (the twins `groupAnnouncement(group, id)`, `groupAnnouncements(group, …)`,
 * `createGroupAnnouncement(group, input)`…, src/groups/plugins/announcements.ts), so a hidden group's
 * announcements are never reached by id alone.
 */
export const AnnouncementType = builder.prismaObject("Announcement", {
  description: "An announcement of a group: its managers write it; members read it, and everyone when the group is visible and it is public.",
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    content: t.exposeString("content"),
    priority: t.exposeInt("priority", { description: "Higher first, after the sticky ones." }),
    sticky: t.exposeInt("sticky", { description: "1: shown before every announcement that is not." }),
    publishUp: t.expose("publishUp", { type: "DateTime", description: "Start of the publishing window." }),
    publishDown: t.expose("publishDown", { type: "DateTime", nullable: true, description: "End of the publishing window; null: open-ended." }),
    scope: t.exposeString("scope", { description: 'Always "group".' }),
    scopeId: t.exposeInt("scopeId", { description: "The group's gidNumber." }),
    state: t.exposeInt("state", { description: PUBLISH_STATE.description }),
    access: t.field({ type: AnnouncementAccess, description: ANNOUNCEMENTS_ACCESS.description, resolve: (record) => record.access }),
    url: t.string({ resolve: (record) => `/groups/${record.scopeId}/announcements/${record.id}` }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});
