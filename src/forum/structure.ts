import { z } from "zod";

/** A section's or category's alias: unique in its scope. */
export const forumAlias = z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9-]{0,99}$/, "may hold only letters, digits and hyphens (at most 100)");

/** Who writes the forum's structure: administrators and, in a group, its managers (the scope kind's managers). */
export const FORUM_STRUCTURE_WRITERS = "Only a group manager or an administrator manages the forum's sections and categories.";
