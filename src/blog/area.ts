import { z } from "zod";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { accessField, createdByField, createdField, stateField, tagsField } from "../common/fields.js";
import { describeScopeKinds, scopeKindField } from "../common/scope-kinds.js";
import { scopedPath } from "../common/scopes.js";
import { aliasFromTitle } from "../common/slug.js";
import { timestamp, zeroOrOne } from "../common/validation.js";

/** Blog access levels: 0 (the documented default, not a level of its own) is public, as 1 is. */
export const BLOG_ACCESS = accessLevels("BlogAccess", [
  { value: 0, level: "public", graphqlName: "NOT_SET", label: "not set (public)" },
  { value: 1, level: "public" },
  { value: 2, level: "registered" },
  { value: 5, level: "private" },
], 0);

const alias = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,254}$/, "may hold only letters, digits and hyphens, starting with a letter or digit (at most 255)");

/** The blog: entries of a scope, shown within their publishing window (src/common/area.ts). */
export const BLOG = defineArea({
  area: "blog",
  model: "BlogEntry",
  plural: "blogEntries",
  label: "Blog entry",
  description: "A blog entry of a scope (the site, a group, a member), shown to readers within its publishing window.",
  // The contract's access rule; published = state 1 inside the publishing window.
  policy: {
    scoped: true,
    published: { field: "state", value: 1 },
    window: { up: "publishUp", down: "publishDown" },
    access: BLOG_ACCESS,
    creator: "createdById",
  },
  fields: {
    // Required to create an entry; a PUT that leaves them out keeps the entry where it is.
    scope: {
      type: "String",
      rule: scopeKindField,
      required: "create",
      description: { create: () => `${describeScopeKinds()}.` },
      rest: { description: () => `${describeScopeKinds()}.`, privacy: true },
    },
    scopeId: {
      type: "Int",
      rule: z.number().int().min(0),
      required: "create",
      description: { create: "The scope's record id (0 for site)." },
      rest: { description: "Scope object ID.", privacy: true },
    },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Entry title." } },
    content: { type: "String", rule: z.string().min(1, "must not be empty"), required: true, rest: { description: "Entry content." } },
    alias: { type: "String", rule: alias, description: "Derived from the title when absent.", rest: { description: "Entry alias; derived from the title when absent." } },
    tags: tagsField,
    created: createdField,
    createdBy: createdByField,
    state: stateField,
    access: accessField(BLOG_ACCESS),
    allowComments: {
      type: "Int",
      rule: zeroOrOne("must be 0 (no comments) or 1 (comments allowed)"),
      description: "1 comments allowed (default), 0 not.",
      default: 1,
      rest: { description: "Allow comments (1) or not (0)." },
    },
    publishUp: { type: "DateTime", rule: timestamp, description: "Start of the publishing window; default now.", default: "now", rest: { description: "Publish start timestamp." } },
    // null removes the end (the window stays open).
    publishDown: {
      type: "DateTime",
      rule: timestamp,
      description: "End of the publishing window; must be after publishUp.",
      clearedTo: null,
      rest: { description: "Publish end timestamp." },
    },
    hits: { type: "Int", rule: z.number().int().min(0), only: "update", description: "Number of views, kept by clients.", default: 0, rest: { description: "Record hits." } },
  },
  uniqueName: { field: "alias", derive: (data) => aliasFromTitle(data.title as string), separator: "-", label: "alias", taken: "This alias is not available in this scope." },
  shown: {
    id: true,
    title: true,
    alias: "Unique within the entry's scope.",
    content: true,
    scope: true,
    scopeId: true,
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    state: PUBLISH_STATE.description,
    access: { levels: BLOG_ACCESS, description: BLOG_ACCESS.description },
    allowComments: "1 comments allowed, 0 not.",
    publishUp: "Start of the publishing window.",
    publishDown: "End of the publishing window; null: open-ended.",
    hits: true,
    tags: { rest: false },
    tagsText: {
      type: "String",
      description: "The tags as one comma-separated string: the REST encoding, so clients get back what they sent.",
      rest: "tags",
      resolve: (entry: { tags: string[] }) => entry.tags.join(", "),
    },
    url: { type: "String", resolve: (entry: { scope: string; scopeId: number; alias: string }) => scopedPath(entry, "blog", entry.alias) },
    createdBy: { relation: true },
  },
  list: {
    description: "Blog entries of one scope the caller may see, searched, sorted and paged like GET /api/blog/list.",
    sortColumns: {
      id: "id",
      title: "title",
      alias: "alias",
      created: "created",
      modified: "modified",
      publish_up: "publishUp",
      publish_down: "publishDown",
      hits: "hits",
      state: "state",
      access: "access",
    },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "title or content", fields: ["title", "content"] },
  },
  read: { description: "One blog entry the caller may see." },
  writes: {
    by: "users",
    forbidden: "Only the creator, a group manager or an administrator can change this entry.",
    names: ["title", "alias", "publishUp", "publishDown"],
    update: "Only the given fields change.",
    remove: "Deletes the entry; returns its id.",
  },
  events: {
    entryCreated: "An entry was created.",
    entryUpdated: "An entry's fields changed; `changed` names them.",
    entryDeleted: "An entry was deleted.",
  },
  // To its scope and its author, as far as they may read it, as long as they may; the window's opening and
  // closing too: an entry scheduled for later reaches the site when it opens.
  activity: {
    describe: (event) => `Blog entry created: ${String(event.payload.title ?? event.recordId)}`,
    follows: ["blog.entryUpdated", "blog.entryDeleted", "blog.windowOpened", "blog.windowClosed"],
  },
  rest: {
    versions: ["1.0"],
    id: "Entry identifier.",
    create: { path: "/blog", task: "create an entry" },
    list: { path: "/blog/list", task: "list entries", key: "posts", extra: { success: true } },
    remove: { path: "/blog/{id}", task: "delete an entry" },
    read: { path: "/blog/{id}", task: "retrieve an entry" },
    replace: { path: "/blog/{id}", task: "update an entry" },
  },
});
