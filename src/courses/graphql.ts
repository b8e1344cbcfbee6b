import { builder } from "../graphql/builder.js";
import { badInput } from "../common/errors.js";
import { parseId } from "../common/validation.js";
import { handlersFor, type AssetHandler } from "./handlers.js";
import { changeCoursePeople, type CoursePeopleChange } from "./people.js";

/**
 * A course's people, by its managers (and administrators): enrol a learner in an offering (and a section), add a
 * manager, take someone off. Each answers the course as the caller may then read it.
 */
const PEOPLE: { field: string; description: string; change: (args: { offering?: string | null; section?: string | null }) => CoursePeopleChange; placed?: true }[] = [
  {
    field: "enrolInCourse",
    description: "Enrols the person as a learner in an offering of the course (and a section of it); enrolling them again moves them.",
    change: (args) => ({ role: "learner", offeringId: parseId(String(args.offering ?? ""), "offering"), sectionId: args.section == null ? null : parseId(String(args.section), "section") }),
    placed: true,
  },
  { field: "addCourseManager", description: "Makes the person one of the course's managers (a learner stops being one).", change: () => ({ role: "manager" }) },
  { field: "removeFromCourse", description: "Takes the person off the course, learner or manager (404 naming `user` if they are neither).", change: () => ({ role: null }) },
];

for (const { field, description, change, placed } of PEOPLE) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: "Course",
      nullable: true,
      description: `${description} The course's managers and administrators only.`,
      authScopes: { user: true },
      args: {
        course: t.arg.id({ required: true, description: "The course's id." }),
        user: t.arg.string({ required: true, description: "The person's username or email address." }),
        ...(placed
          ? { offering: t.arg.id({ required: true, description: "An offering of the course." }), section: t.arg.id({ description: "A section of that offering (absent: none)." }) }
          : {}),
      },
      resolve: (query, _root, args, ctx) => changeCoursePeople(ctx, parseId(String(args.course), "course"), args.user, change(args as never), query),
    }),
  );
}

const AssetHandlerType = builder.objectRef<AssetHandler>("CourseAssetHandler").implement({
  description: "A way a course shows an uploaded file (its handler).",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    extensions: t.exposeStringList("extensions", { description: "The extensions it takes (empty: every file)." }),
  }),
});

const AssetHandlersType = builder.objectRef<ReturnType<typeof handlersFor>>("CourseAssetHandlers").implement({
  description: "The handlers that take a file name's extension, and the upload limit.",
  fields: (t) => ({
    ext: t.exposeString("ext", { description: "The name's extension, lower-cased (empty: it has none)." }),
    handlers: t.field({ type: [AssetHandlerType], description: "The handlers that take it, the most specific first; `download` takes every file.", resolve: (answer) => answer.handlers }),
    maxUpload: t.exposeInt("maxUpload", { description: "The largest file an asset takes, in megabytes (COURSE_UPLOAD_LIMIT_MB)." }),
  }),
});

builder.queryField("courseAssetHandlers", (t) =>
  t.field({
    type: AssetHandlersType,
    authScopes: { public: true },
    description: "The asset handlers that take a file of this name, and the upload limit (POST /api/courses/asset/handlers).",
    args: { name: t.arg.string({ required: true, description: "The name of the file to be uploaded." }) },
    resolve: (_root, args, ctx) => {
      if (args.name.length > 1_000) throw badInput("name", "must be at most 1,000 characters");
      return handlersFor(args.name, ctx.config);
    },
  }),
);
