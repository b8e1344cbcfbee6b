import { z } from "zod";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { accessField, createdByField, createdField, stateField } from "../common/fields.js";
import { timestamp, zeroOrOne } from "../common/validation.js";

/**
 * Announcements (docs/decisions.md, "Group plugins"): records of a group only, reached through
 * /groups/{group}/announcements. The group's managers and administrators write them; members read them
 * all; anyone else reads the public ones of a visible group (a hidden group is not there for them:
 * groupIdFromPath answers 404 before any announcement is read).
 */
export const ANNOUNCEMENTS_ACCESS = accessLevels("AnnouncementAccess", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 2, level: "private", label: "group members" },
], 0);

/**
 * `rank` is the default order: sticky ones first, then by priority, then the newest (ties by id, which
 * follow creation). One stored column (sticky * RANK_STICKY + priority), so one index serves it.
 */
const RANK_STICKY = 100_000;
const MAX_PRIORITY = 9_999;
const rankOf = (sticky: number, priority: number) => sticky * RANK_STICKY + priority;

/** A group's announcements, declared once (src/common/area.ts); its rows and twins are the group plugin's (src/groups/plugins/announcements.ts). */
export const ANNOUNCEMENTS = defineArea({
  area: "announcements",
  model: "Announcement",
  plural: "announcements",
  label: "Announcement",
  description: "An announcement of a group: its managers write it; members read it, and everyone when the group is visible and it is public.",
  // Published = state 1 inside the publishing window (as the blog's).
  policy: {
    scoped: true,
    published: { field: "state", value: 1 },
    window: { up: "publishUp", down: "publishDown" },
    access: ANNOUNCEMENTS_ACCESS,
    creator: "createdById",
  },
  fields: {
    // Only ever a group: the plugin path fills both from {group}; they are no REST parameters.
    scope: { type: "String", rule: z.literal("group", 'must be "group": announcements belong to groups'), required: "create", description: 'Always "group".', rest: false },
    scopeId: { type: "Int", rule: z.number().int().min(1), required: "create", description: { create: "The group's gidNumber." }, rest: false },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Announcement title." } },
    content: { type: "String", rule: z.string().trim().min(1, "must not be empty"), required: true, rest: { description: "Announcement text." } },
    priority: {
      type: "Int",
      rule: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY),
      description: `Higher first (from -${MAX_PRIORITY} to ${MAX_PRIORITY}); default 0.`,
      default: 0,
      rest: { description: `Priority: higher first (-${MAX_PRIORITY} to ${MAX_PRIORITY}).` },
    },
    sticky: { type: "Int", rule: zeroOrOne("must be 0 or 1 (1: shown before the others)"), description: "1: shown before every announcement that is not; default 0.", default: 0, rest: { description: "Sticky (1) or not (0)." } },
    publishUp: { type: "DateTime", rule: timestamp, description: "Start of the publishing window; default now.", default: "now", rest: { description: "Publish start timestamp." } },
    publishDown: {
      type: "DateTime",
      rule: timestamp,
      description: "End of the publishing window (null: none); must be after publishUp.",
      clearedTo: null,
      rest: { description: "Publish end timestamp (empty: none)." },
    },
    // Published unless said otherwise: an announcement is written to be read. That default is the wider
    // choice, so it is a privacy parameter: a PUT that leaves it out keeps a draft a draft (docs/decisions.md).
    state: { ...stateField, description: `${PUBLISH_STATE.description} Default 1.`, default: 1, rest: { ...stateField.rest, privacy: true } },
    access: accessField(ANNOUNCEMENTS_ACCESS),
    created: createdField,
    createdBy: createdByField,
  },
  shown: {
    id: true,
    title: true,
    content: true,
    priority: "Higher first, after the sticky ones.",
    sticky: "1: shown before every announcement that is not.",
    publishUp: "Start of the publishing window.",
    publishDown: "End of the publishing window; null: open-ended.",
    scope: 'Always "group".',
    scopeId: "The group's gidNumber.",
    state: PUBLISH_STATE.description,
    access: { levels: ANNOUNCEMENTS_ACCESS, description: ANNOUNCEMENTS_ACCESS.description },
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    url: { type: "String", resolve: (record: { id: number; scopeId: number }) => `/groups/${record.scopeId}/announcements/${record.id}` },
    createdBy: { relation: true },
  },
  // The default order's column (rankOf), kept by the service.
  hidden: ["rank"],
  list: {
    description: "A group's announcements the caller may see.",
    sortColumns: { rank: "rank", id: "id", priority: "priority", title: "title", created: "created", publish_up: "publishUp" },
    defaults: { sort: "rank", sortDir: "desc", limit: 25 },
    search: { in: "title or content", fields: ["title", "content"] },
  },
  read: { description: "One announcement the caller may see." },
  // Announcements are read and written through their group only (the twins `groupAnnouncement(group, id)`,
  // `groupAnnouncements(group, …)`, `createGroupAnnouncement(group, input)`…), so a hidden group's
  // announcements are never reached by id alone.
  rootFields: false,
  writes: {
    by: "managers",
    forbidden: "Only the group's managers can write its announcements.",
    staysInScope: "an announcement stays in its group",
    derived: (data, row) => ({ rank: rankOf((data.sticky ?? row?.sticky ?? 0) as number, (data.priority ?? row?.priority ?? 0) as number) }),
    names: ["title", "publishUp", "publishDown"],
    remove: "Deletes the announcement; returns its id.",
  },
  events: {
    announcementCreated: "An announcement was created.",
    announcementUpdated: "An announcement's fields changed; `changed` names them.",
    announcementDeleted: "An announcement was deleted (by itself, or with its group).",
  },
});
