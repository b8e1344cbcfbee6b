import type { User } from "../generated/prisma/client.js";
import { createUser } from "../users/service.js";
import { WIKI_ACCESS, createWikiPage, updateWikiPage } from "../wiki/service.js";
import { BLOG_ACCESS, createBlogEntry } from "../blog/service.js";
import { contextAs, counted, operatorContext, service, type CliRun } from "./context.js";
import { generatedPassword } from "./users.js";

/**
 * Demo content for the areas that exist: accounts, a group with members, wiki pages with revisions and
 * blog entries, some public and some not, so GraphiQL and the REST API have something to show and the
 * access rules something to hide. Everything except the group goes through the services (the groups area
 * has no service yet), so their rules hold. Records are found again by their names, so a second run adds
 * nothing; a run that stopped half-way is completed by the next.
 */

const DEMO_USERS = [
  { username: "ada", name: "Ada Lovelace", email: "ada@demo.hubgraph.invalid" },
  { username: "grace", name: "Grace Hopper", email: "grace@demo.hubgraph.invalid" },
  { username: "margaret", name: "Margaret Hamilton", email: "margaret@demo.hubgraph.invalid" },
  { username: "linus", name: "Linus Demo", email: "linus@demo.hubgraph.invalid" },
] as const;
type DemoUser = (typeof DEMO_USERS)[number]["username"];

const DEMO_GROUP = { cn: "makerspace", title: "Makerspace", managers: ["grace"], members: ["grace", "margaret", "linus"] } as const;

interface DemoPage {
  author: DemoUser;
  title: string;
  pagename: string;
  inGroup?: boolean;
  state?: number;
  access?: number;
  /** Revision texts in order, each with its summary; the first one creates the page. */
  revisions: { text: string; summary: string }[];
}

const DEMO_PAGES: DemoPage[] = [
  {
    author: "ada",
    title: "Getting Started",
    pagename: "GettingStarted",
    revisions: [
      { text: "Welcome to the hub. This wiki is where members write things down.", summary: "first draft" },
      { text: "Welcome to the hub. This wiki is where members write things down.\n\nStart with the [[FAQ]] and the [[CommunityGuidelines]].", summary: "link the FAQ and the guidelines" },
      {
        text: "Welcome to the hub. This wiki is where members write things down.\n\nStart with the [[FAQ]] and the [[CommunityGuidelines]]. Questions go to the blog's comments or to any administrator.",
        summary: "say where questions go",
      },
    ],
  },
  {
    author: "grace",
    title: "Community Guidelines",
    pagename: "CommunityGuidelines",
    revisions: [
      { text: "Be kind. Assume good intent. Credit the work of others.", summary: "" },
      { text: "Be kind. Assume good intent. Credit the work of others. Keep discussions on topic; move long ones to their own page.", summary: "on-topic rule" },
    ],
  },
  {
    author: "ada",
    title: "FAQ",
    pagename: "FAQ",
    revisions: [{ text: "How do I get an account? Ask an administrator.\nCan I write in a group? Yes, once you are a member.", summary: "" }],
  },
  {
    author: "margaret",
    title: "Members' Directory",
    pagename: "MembersDirectory",
    access: WIKI_ACCESS.valuesOf("registered")[0],
    revisions: [{ text: "Visible to signed-in members only: who works on what, and how to reach them.", summary: "" }],
  },
  {
    author: "grace",
    title: "Tool Library",
    pagename: "ToolLibrary",
    inGroup: true,
    revisions: [
      { text: "Tools the makerspace lends out: drills, a soldering station, a 3D printer.", summary: "" },
      { text: "Tools the makerspace lends out: drills, a soldering station, a 3D printer and a laser cutter. Book them a day ahead.", summary: "add the laser cutter" },
    ],
  },
  {
    author: "ada",
    title: "Roadmap (draft)",
    pagename: "RoadmapDraft",
    state: 0,
    revisions: [{ text: "Unpublished: only its author and administrators see this page.", summary: "" }],
  },
];

interface DemoEntry {
  author: DemoUser;
  title: string;
  alias: string;
  content: string;
  tags: string[];
  /** Days from now until it is published (negative: in the past). */
  publishInDays: number;
  inGroup?: boolean;
  access?: number;
}

const DEMO_ENTRIES: DemoEntry[] = [
  { author: "ada", title: "Welcome to the hub", alias: "welcome-to-the-hub", content: "The hub is open. Read Getting Started in the wiki.", tags: ["news", "hub"], publishInDays: -21 },
  { author: "grace", title: "Wiki pages now keep their history", alias: "wiki-revisions", content: "Every edit of a wiki page is a revision you can read again.", tags: ["release", "wiki"], publishInDays: -9 },
  { author: "margaret", title: "Meetup recap", alias: "meetup-recap", content: "Thirty people, four talks, one broken projector.", tags: ["events", "community"], publishInDays: -2 },
  { author: "margaret", title: "Members only: next quarter's budget", alias: "budget-members-only", content: "Signed-in members can read the numbers.", tags: ["community"], publishInDays: -1, access: BLOG_ACCESS.valuesOf("registered")[0] },
  { author: "linus", title: "New laser cutter", alias: "new-laser-cutter", content: "Book it in the Tool Library.", tags: ["equipment"], publishInDays: -4, inGroup: true },
  { author: "ada", title: "Summer hackathon", alias: "summer-hackathon", content: "Scheduled: visible to everyone once its publishing date comes.", tags: ["events"], publishInDays: 10 },
];

export interface SeedResult {
  users: number;
  groups: number;
  memberships: number;
  pages: number;
  revisions: number;
  entries: number;
  /** Passwords of the accounts this run created (generated unless --password was given). */
  password: string | null;
}

export async function seedDemo(run: CliRun, options: { password?: string }): Promise<SeedResult> {
  const db = run.db.prisma;
  const added: SeedResult = { users: 0, groups: 0, memberships: 0, pages: 0, revisions: 0, entries: 0, password: null };
  const password = options.password ?? generatedPassword();

  const users = new Map<DemoUser, User>();
  for (const demo of DEMO_USERS) {
    let user = await db.user.findUnique({ where: { username: demo.username } });
    if (!user) {
      user = await service(createUser(operatorContext(run), { ...demo, password }), { password: "--password" });
      added.users += 1;
      added.password = password;
    }
    users.set(demo.username, user);
  }
  const as = (username: DemoUser) => contextAs(run, users.get(username)!);

  let group = await db.group.findUnique({ where: { cn: DEMO_GROUP.cn } });
  if (!group) {
    group = await db.group.create({ data: { cn: DEMO_GROUP.cn, title: DEMO_GROUP.title } });
    added.groups += 1;
  }
  // One row per member; managers are members with the flag.
  const memberships = DEMO_GROUP.members.map((username) => ({
    groupId: group.id,
    userId: users.get(username)!.id,
    status: "member" as const,
    manager: (DEMO_GROUP.managers as readonly string[]).includes(username),
  }));
  added.memberships += (await db.groupMember.createMany({ data: memberships, skipDuplicates: true })).count;

  for (const page of DEMO_PAGES) {
    const ctx = as(page.author);
    const scope = page.inGroup ? { scope: "group", scopeId: group.id } : { scope: "site", scopeId: 0 };
    let existing = await db.wikiPage.findUnique({
      where: { scope_scopeId_pagename: { ...scope, pagename: page.pagename } },
      select: { id: true, _count: { select: { revisions: true } } },
    });
    if (!existing) {
      const [first] = page.revisions;
      const created = await service(
        createWikiPage(ctx, { title: page.title, pagename: page.pagename, pagetext: first!.text, summary: first!.summary, state: page.state ?? 1, access: page.access ?? WIKI_ACCESS.fallback, ...scope }),
      );
      existing = { id: created.id, _count: { revisions: 1 } };
      added.pages += 1;
      added.revisions += 1;
    }
    for (const revision of page.revisions.slice(existing._count.revisions)) {
      await service(updateWikiPage(ctx, existing.id, { pagetext: revision.text, summary: revision.summary }));
      added.revisions += 1;
    }
  }

  const day = 24 * 3600 * 1000;
  for (const entry of DEMO_ENTRIES) {
    const scope = entry.inGroup ? { scope: "group", scopeId: group.id } : { scope: "site", scopeId: 0 };
    const existing = await db.blogEntry.findUnique({ where: { scope_scopeId_alias: { ...scope, alias: entry.alias } }, select: { id: true } });
    if (existing) continue;
    await service(
      createBlogEntry(as(entry.author), {
        title: entry.title,
        alias: entry.alias,
        content: entry.content,
        tags: entry.tags,
        state: 1,
        access: entry.access ?? BLOG_ACCESS.valuesOf("public")[1],
        publishUp: new Date(Date.now() + entry.publishInDays * day),
        ...scope,
      }),
    );
    added.entries += 1;
  }
  return added;
}

export async function seedCommand(run: CliRun, options: { demo?: boolean; password?: string }): Promise<void> {
  const added = await seedDemo(run, options);
  const counts: [number, string, string?][] = [
    [added.users, "user"],
    [added.groups, "group"],
    [added.memberships, "group membership"],
    [added.pages, "wiki page"],
    [added.revisions, "wiki revision"],
    [added.entries, "blog entry", "blog entries"],
  ];
  const parts = counts.filter(([count]) => count > 0).map(([count, singular, plural]) => counted(count, singular, plural));
  if (!parts.length) {
    run.say("the demo content is there already; nothing added");
    return;
  }
  run.say(`added ${parts.join(", ")}`);
  if (added.users && !options.password) {
    run.say(`demo accounts ${DEMO_USERS.map((user) => user.username).join(", ")} have the password: ${added.password}`);
  }
}
