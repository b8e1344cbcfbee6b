import { Prisma, type User } from "../generated/prisma/client.js";
import { serverBaseUrl } from "../config.js";
import type { RequestContext } from "../common/context.js";
import { NOW } from "../common/write-statements.js";
import { sqlClientOf } from "../db/sql.js";
import { createUser } from "../users/service.js";
import { WIKI, WIKI_ACCESS } from "../wiki/area.js";
import { BLOG, BLOG_ACCESS } from "../blog/area.js";
import { contextAs, counted, operatorContext, service, type CliRun } from "./context.js";
import { generatedPassword } from "./users.js";

/**
 * Demo content for the areas that exist: accounts, a group with members, wiki pages with revisions and
 * blog entries, some public and some not, so GraphiQL and the REST API have something to show and the
 * access rules something to hide. Everything except the group goes through the services (the groups area
 * has no service yet), so their rules hold. Records are found again by their names, so a second run adds
 * nothing; a run that stopped half-way is completed by the next.
 *
 * It never touches what is not its own: a name taken by someone else's record (the README walk-through's
 * "Getting Started" page, an account called ada) is skipped and reported, and so is everything that would
 * have been written by, or into, what was skipped. A run that fails deletes what it had added, so it adds
 * all or nothing (see seedDemo for why that is not one database transaction).
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
  /** Demo accounts that exist (made by this run or an earlier one), in order. */
  accounts: string[];
  /** What was left alone because its name belongs to someone else's record, one sentence each. */
  skipped: string[];
}

/** The e-mail domain of demo accounts: how an account called ada is known to be the demo's. */
const DEMO_DOMAIN = "@demo.hubgraph.invalid";

/**
 * Adds what is missing, all or nothing: ONE transaction through the write path. The accounts, the group and
 * its memberships are written in it with plain SQL, and the pages and entries by the services, whose writes
 * join the open transaction (src/common/write-path.ts, `sqlOf`); a failure anywhere rolls everything back.
 */
export async function seedDemo(run: CliRun, options: { password?: string }, progress: (line: string) => void = () => {}): Promise<SeedResult> {
  const password = options.password ?? generatedPassword();
  return sqlClientOf(run.db.prisma).transaction(async (tx) => {
    const added: SeedResult = { users: 0, groups: 0, memberships: 0, pages: 0, revisions: 0, entries: 0, password: null, accounts: [], skipped: [] };
    const inTransaction = (ctx: RequestContext) => Object.assign(ctx, { tx });

    progress(`accounts (${DEMO_USERS.length})`);
    const users = new Map<DemoUser, Pick<User, "id" | "username" | "isAdmin">>();
    for (const demo of DEMO_USERS) {
      // Usernames are unique regardless of case: ADA would keep ada from being created.
      let [user] = await tx.query<{ id: number; username: string; email: string; isAdmin: boolean }>(
        Prisma.sql`SELECT id, username, email, is_admin AS "isAdmin" FROM users WHERE lower(username) = lower(${demo.username})`,
      );
      if (user && user.email !== demo.email) {
        added.skipped.push(`account ${demo.username}: the name belongs to an account that is not the demo's, so ${demo.username}'s pages and entries are left out too`);
        continue;
      }
      if (!user) {
        user = await service(createUser(inTransaction(operatorContext(run)), { ...demo, password }), { password: "--password" });
        added.users += 1;
        added.password = password;
      }
      users.set(demo.username, user);
      added.accounts.push(demo.username);
    }
    const as = (username: DemoUser) => inTransaction(contextAs(run, users.get(username)!));

    progress(`group ${DEMO_GROUP.cn}`);
    const [found] = await tx.query<{ id: number; foreign: boolean }>(Prisma.sql`
      SELECT g.id, coalesce(bool_or(u.email NOT LIKE ${`%${DEMO_DOMAIN}`}), false) AS foreign
        FROM groups g LEFT JOIN group_members m ON m.group_id = g.id LEFT JOIN users u ON u.id = m.user_id
       WHERE g.cn = ${DEMO_GROUP.cn} GROUP BY g.id`);
    let group: { id: number } | null = found ?? null;
    if (found?.foreign) {
      added.skipped.push(`group ${DEMO_GROUP.cn}: a group with that name has members who are not demo accounts, so the demo's group pages and entries are left out`);
      group = null;
    } else {
      if (!group) {
        group = (await tx.query<{ id: number }>(Prisma.sql`INSERT INTO groups (cn, title, created) VALUES (${DEMO_GROUP.cn}, ${DEMO_GROUP.title}, ${NOW}) RETURNING id`))[0]!;
        added.groups += 1;
      }
      // One row per member; managers are members with the flag.
      for (const username of DEMO_GROUP.members) {
        if (!users.has(username)) continue;
        const manager = (DEMO_GROUP.managers as readonly string[]).includes(username);
        const made = await tx.query(Prisma.sql`
          INSERT INTO group_members (group_id, user_id, status, manager) VALUES (${group!.id}, ${users.get(username)!.id}, 'member', ${manager})
          ON CONFLICT DO NOTHING RETURNING 1`);
        added.memberships += made.length;
      }
    }

    for (const [index, page] of DEMO_PAGES.entries()) {
      progress(`wiki pages ${index + 1}/${DEMO_PAGES.length}`);
      if (!users.has(page.author)) continue;
      if (page.inGroup && !group) continue;
      const ctx = as(page.author);
      const scope = page.inGroup ? { scope: "group", scopeId: group!.id } : { scope: "site", scopeId: 0 };
      let [existing] = await tx.query<{ id: number; createdById: number; revisions: number }>(Prisma.sql`
        SELECT id, created_by AS "createdById", revision_count AS revisions FROM wiki_pages
         WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId} AND pagename = ${page.pagename}`);
      if (existing && existing.createdById !== users.get(page.author)!.id) {
        added.skipped.push(`wiki page ${page.pagename}: a page with that name exists and is not the demo's`);
        continue;
      }
      if (!existing) {
        const [first] = page.revisions;
        const made = await service(
          WIKI.createRecord<{ id: number }>(ctx, { title: page.title, pagename: page.pagename, pagetext: first!.text, summary: first!.summary, state: page.state ?? 1, access: page.access ?? WIKI_ACCESS.fallback, ...scope }),
        );
        existing = { id: made.id, createdById: users.get(page.author)!.id, revisions: 1 };
        added.pages += 1;
        added.revisions += 1;
      }
      for (const revision of page.revisions.slice(existing.revisions)) {
        await service(WIKI.updateRecord(ctx, existing.id, { pagetext: revision.text, summary: revision.summary }));
        added.revisions += 1;
      }
    }

    const day = 24 * 3600 * 1000;
    for (const [index, entry] of DEMO_ENTRIES.entries()) {
      progress(`blog entries ${index + 1}/${DEMO_ENTRIES.length}`);
      if (!users.has(entry.author)) continue;
      if (entry.inGroup && !group) continue;
      const scope = entry.inGroup ? { scope: "group", scopeId: group!.id } : { scope: "site", scopeId: 0 };
      const [existing] = await tx.query<{ createdById: number }>(Prisma.sql`
        SELECT created_by AS "createdById" FROM blog_entries WHERE scope = ${scope.scope} AND scope_id = ${scope.scopeId} AND alias = ${entry.alias}`);
      if (existing) {
        if (existing.createdById !== users.get(entry.author)!.id) added.skipped.push(`blog entry ${entry.alias}: an entry with that alias exists and is not the demo's`);
        continue;
      }
      await service(
        BLOG.createRecord(as(entry.author), {
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
  });
}

export async function seedCommand(run: CliRun, options: { demo?: boolean; password?: string }): Promise<void> {
  // Progress on stderr, so stdout carries the result alone.
  const added = await seedDemo(run, options, (line) => run.io.stderr(`seeding ${line}…\n`));
  const counts: [number, string, string?][] = [
    [added.users, "user"],
    [added.groups, "group"],
    [added.memberships, "group membership"],
    [added.pages, "wiki page"],
    [added.revisions, "wiki revision"],
    [added.entries, "blog entry", "blog entries"],
  ];
  const parts = counts.filter(([count]) => count > 0).map(([count, singular, plural]) => counted(count, singular, plural));
  run.say(parts.length ? `added ${parts.join(", ")}` : "the demo content is there already; nothing added");
  for (const skipped of added.skipped) run.say(`skipped ${skipped}`);
  if (!added.accounts.length) return;
  const secret = added.users ? (options.password ? "the password given with --password" : `the password ${added.password}`) : "the password they were given when they were created (change it with: user reset-password <name>)";
  run.say(`demo accounts: ${added.accounts.join(", ")}, with ${secret}`);
  // The server's address as HOST and PORT say (PORT=0 picks one at start: the start-up line names it).
  const base = run.config.port ? serverBaseUrl(run.config.host, run.config.port) : "http://localhost:<the port the server's start-up line names>";
  run.say(`sign in as one: curl -s ${base}/api/developer/oauth/token -d grant_type=password -d username=${added.accounts[0]} -d password=…`);
}
