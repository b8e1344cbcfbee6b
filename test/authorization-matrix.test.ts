import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getNamedType, parse, type GraphQLObjectType } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { schema } from "../src/graphql/schema.js";
import type { AccessLevelName } from "../src/common/access.js";
import { contractAreas, graphqlScope, listedRecords, listedTotal, listRequest, listTakes, recordPath, type AreaTesting, type ListContract, type PublishingState, type Where } from "./areas.js";
import { oneServerForFile, type RestOptions, type TestServer } from "./server.js";
import { mulberry32 } from "./random.js";
import { allEventsReadable } from "./outbox.js";
import type { Viewer } from "../src/common/context.js";
import { OUTBOX_START, readCommittedEvents, type StoredEvent } from "../src/common/outbox.js";
import { everyWrittenRecords, writtenRecordsOf } from "../src/common/written-records.js";
import { sqlClientOf } from "../src/db/sql.js";
import { accessFieldOf, declaredRecords, ownKindOf } from "../src/common/records.js";
import { searchConditionSql } from "../src/common/visibility.js";
import { readableBy, shownTo, viewerKey } from "../src/events/subscriptions.js";
import { drainAll } from "../src/events/dispatcher.js";
import { ACTIVITY_CONSUMER } from "../src/activity/consumer.js";
import { activitySourceOf } from "../src/common/activity-sources.js";
import { eventCatalogue } from "../src/common/events.js";
import { Prisma } from "../src/generated/prisma/client.js";

/**
 * The authorization matrix (issue 7): for every area that declares a contract in src/<area>/testing.ts,
 * every caller × every documented access level × every publishing state × every scope kind (scoped areas)
 * × every operation (read by id, shown in the list, counted in the list's total, found by search, update,
 * delete) × both transports (REST and GraphQL), each cell a real HTTP request against a real database.
 * Groups are such records themselves (each seeded group is where the callers stand: its members, managers,
 * invitees and applicants), and plugin records are read by administrators only.
 *
 * Each cell's expected answer comes from `oracle` below: a few lines written from the contract's
 * "Access" section (shared/conventions/api-contract.md) and docs/decisions.md, over the area's
 * declaration only. It calls nothing of the service (no visibleSql, no canManage), so a broken rule in
 * the service shows up here as cells whose answer differs from the oracle's.
 *
 * The records are seeded once per area (one per access level × state × scope); writes are arranged so
 * they spoil no later cell: updates send the record back unchanged, and each delete that succeeds is
 * followed by a fresh copy of the record for the next caller. Totals are checked record by record: after
 * each record is created, every caller's total of its scope must grow by one exactly when the oracle
 * says that caller may see it.
 */

// ---------------------------------------------------------------------------------------------------
// The oracle: the contract's rules as a pure function of caller, record and area.

/**
 * The callers of the matrix. "other user" has roles elsewhere (manages another group) and none here; the
 * group's invitee and applicant stand at its door: neither is a member yet, so neither sees its private records.
 * Where the records are groups themselves, "the group" is the record: its creator is no longer in it (being
 * its creator gives no right, docs/decisions.md "Who changes a group"), the others stand in it as named.
 */
const ROLES = ["anonymous", "user", "other user", "creator", "group invitee", "group applicant", "group member", "group manager", "administrator"] as const;
type Role = (typeof ROLES)[number];
/** Where a record is: the site, the matrix's group, the same group's members in a hidden group, the creator's member scope, or nowhere. */
type ScopeKind = "site" | "group" | "hidden group" | "member";
/** A group's scope (its members and managers are the callers named so), visible or hidden. */
const inGroup = (scope: ScopeKind | null) => scope === "group" || scope === "hidden group";

/** What the oracle knows of a record: its access level's name, whether it is shown as published, its scope kind. */
interface Subject {
  /** The records' model (a named read without a listing is one model's). */
  model: string;
  level: AccessLevelName;
  published: boolean;
  scope: ScopeKind | null;
  /** The area's group managers moderate its records (`records.moderatedBy`: a forum's). */
  moderated?: boolean;
  /** The record is a group (`records.isScope`): the group callers stand in it, and its level is its discoverability (public: visible, private: hidden). */
  group?: boolean;
  /** Only administrators read the records, lists and totals too (`records.administratorsOnly`: plugin records). */
  administratorsOnly?: boolean;
}

/** An answer as the matrix compares them: read/list/search "shown"/"hidden", totals "counted"/"not counted", writes "done" or a status. */
type Answer = string;

/**
 * Reads without a listing: a caller who reads a record by id but finds it in no list, total or search. The
 * contract allows none ("This filter applies to reads, lists, counts, search and suggestions alike"); those the
 * documents decide otherwise are named here, each with where it is decided, and each is declared by its records
 * as a read rule beside the list rule (`isScope` with its kind's `readers`, src/common/records.ts; docs/policy-design.md calls it
 * `readsWithoutListing`). The matrix fails on any other read without a listing (an oracle-free check over the
 * read and list cells' answers, per area), on a named one that did not happen, and on a declaration with a read
 * rule no case here names.
 */
const READS_WITHOUT_LISTING: { name: string; source: string; model: string; applies(role: Role, record: Subject): boolean }[] = [
  {
    name: "a hidden group's invitee reads the group that invited them (to accept), and finds it in no list nor total",
    source: 'docs/decisions.md, "Groups", "Who sees what"',
    model: "Group",
    applies: (role, record) => Boolean(record.group) && record.level === "private" && role === "group invitee",
  },
];
const readsWithoutListing = (role: Role, record: Subject) => READS_WITHOUT_LISTING.find((named) => named.model === record.model && named.applies(role, record));

const oracle = {
  /**
   * Who finds the record in lists, totals and searches. "Access levels public / registered / private: public →
   * anyone; registered → any signed-in user; private → the creator, administrators, and members of the record's
   * group when scope = group. Unpublished records → the creator and administrators only." Invitees and
   * applicants are not members.
   */
  mayList(role: Role, record: Subject): boolean {
    if (role === "administrator") return true;
    // "Administrators only, every operation, reads and lists too" (docs/decisions.md, "Plugins").
    if (record.administratorsOnly) return false;
    // "Visible groups: everyone. Hidden groups: administrators and their members in lists, totals and reads"; no
    // creator rule (docs/decisions.md, "Groups", "Who sees what", "Who changes a group").
    // A course: closed (unpublished or private) to all but its members (docs/decisions.md, "Courses"); a group is always published.
    if (record.group) return (record.published && record.level === "public") || role === "group member" || role === "group manager";
    if (role === "creator") return true;
    // "Unpublished posts are seen only by their author, moderators and administrators" (issue 15): a group's managers moderate its forum.
    if (record.moderated && inGroup(record.scope) && role === "group manager") return true;
    if (!record.published) return false;
    // A hidden group's content, whatever its level, is its members' alone (docs/decisions.md, hidden groups).
    if (record.scope === "hidden group") return role === "group member" || role === "group manager";
    if (record.level === "public") return true;
    if (record.level === "registered") return role !== "anonymous";
    return record.scope === "group" && (role === "group member" || role === "group manager");
  },
  /** Who reads it by id (and is told of its events): whoever finds it in lists, and the named reads without a listing. */
  mayRead(role: Role, record: Subject): boolean {
    return oracle.mayList(role, record) || readsWithoutListing(role, record) !== undefined;
  },
  /**
   * A read or list refused before any record is looked at: records only administrators read answer anonymous
   * callers 401 and other users 403 ("Anonymous callers get 401, other users 403, in the service", docs/decisions.md,
   * "Plugins"); undefined where reads and lists answer what the caller may see.
   */
  refusal(role: Role, record: Subject): Answer | undefined {
    if (!record.administratorsOnly || role === "administrator") return undefined;
    return role === "anonymous" ? "401" : "403";
  },
  /**
   * "Update and delete: the creator, administrators, and group managers for group-scoped records."
   * Areas whose records only administrators write (citations) leave the creator and managers out; areas
   * whose records only the scope's managers write (announcements) leave the creator out: a creator who is
   * no longer a manager changes nothing. A group: "Its managers and administrators update and delete it";
   * "being the creator gives no right after that" (docs/decisions.md, "Who changes a group").
   */
  mayManage(role: Role, record: Subject, writers: ListContract["writers"]): boolean {
    if (role === "administrator") return true;
    if (writers === "administrators") return false;
    if (record.group) return role === "group manager";
    if (writers === "managers") return role === "group manager" && inGroup(record.scope);
    return role === "creator" || (role === "group manager" && inGroup(record.scope));
  },
  /**
   * A write's answer: 401 without a user; done when the caller may manage the record; otherwise 403 when
   * the caller may see it and 404 when not, as if it did not exist (docs/decisions.md). Areas that only
   * administrators write refuse everyone else with 403 before looking at the record (so the refusal says
   * nothing about it either).
   */
  write(role: Role, record: Subject, writers: ListContract["writers"]): Answer {
    if (role === "anonymous") return "401";
    if (oracle.mayManage(role, record, writers)) return "done";
    if (writers === "administrators") return "403";
    return oracle.mayRead(role, record) ? "403" : "404";
  },
  /**
   * An update's answer. It never hands back what the caller could not read (issue 7): a caller who may
   * change a record but not see it (a group manager and a member's draft) gets the change done and the
   * record withheld (REST 204 without a body, GraphQL null).
   */
  update(role: Role, record: Subject, writers: ListContract["writers"]): Answer {
    const answer = oracle.write(role, record, writers);
    return answer === "done" && !oracle.mayRead(role, record) ? "done, record withheld" : answer;
  },
};

/**
 * Where a target is known to disagree with the oracle, each with why; a cell it applies to expects the known
 * answer, so a fix fails here until its entry goes. Issue 27 asks for none, and there is none (docs/policy-design.md:
 * D11, D12, D13 and D14 went with their fixes).
 */
const KNOWN_DISAGREEMENTS: { operation: Operation; why: string; applies(role: Role, record: Subject): boolean; answer: Answer }[] = [];

// ---------------------------------------------------------------------------------------------------
// The cells, planned from the declarations alone (so the test names can give their counts).

type Area = AreaTesting & { contract: ListContract };
/** Each step sends hundreds of requests; a machine busy with other work takes several times as long. */
const TIMEOUT = 600_000;
const OPERATIONS = [
  "read by id",
  "shown in the list",
  "counted in the total",
  "found by search",
  "matched by the search condition",
  "told of it",
  "reads its activity entry",
  "update",
  "delete",
  "told of its deletion",
] as const;
type Operation = (typeof OPERATIONS)[number];
/**
 * The API's two transports, the outbox (what subscriptions, webhooks and the activity fan-out are told:
 * `readableBy`), and SQL: the condition a search index asks of each hit (`searchConditionSql`, issue 31).
 */
type HttpTransport = "REST" | "GraphQL";
type TransportName = HttpTransport | "outbox" | "SQL";

/** One seeded record: its access level, publishing state and scope kind, and whether it hides its author. */
interface Seed {
  index: number;
  access?: { value: number; name: AccessLevelName };
  state: PublishingState;
  scope: ScopeKind | null;
  /** Where the area's records can hide their author (`WrittenRecords.anonymous`: forum posts), every other record does. */
  anonymous?: boolean;
}

interface Cell {
  role: Role;
  seed: Seed;
  transport: TransportName;
  operation: Operation;
  expected: Answer;
  got?: Answer;
}

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/** The GraphQL root fields of an area, named by the contract's one rule from its list field's item type. */
function graphqlFields(contract: ListContract) {
  // The twins of a list whose path names its scope are declared with it (`groupAnnouncement`, …).
  if (contract.list.scopeFromPath) return contract.list.scopeFromPath.graphql;
  const listType = getNamedType(schema.getQueryType()!.getFields()[contract.list.graphql]!.type) as GraphQLObjectType;
  const model = getNamedType(listType.getFields().items!.type).name;
  const queries = schema.getQueryType()!.getFields();
  const mutations = schema.getMutationType()!.getFields();
  const read = lowerFirst(model);
  return {
    read: queries[read] ? read : undefined,
    update: mutations[`update${model}`] ? `update${model}` : undefined,
    remove: mutations[`delete${model}`] ? `delete${model}` : undefined,
  };
}

/** Which transports answer an operation for this area: REST where the area has the row, GraphQL where the schema has the field. */
function transportsOf(area: Area, operation: Operation): TransportName[] {
  const { contract } = area;
  const graphql = graphqlFields(contract);
  const has: Record<Operation, [boolean, boolean]> = {
    "read by id": [Boolean(contract.read), Boolean(graphql.read)],
    "shown in the list": [true, true],
    "counted in the total": [true, true],
    // The REST list searches where its row takes `search` (a group plugin's list does not: its twin does).
    "found by search": [Boolean(contract.spec.search) && listTakes(contract, "search"), Boolean(contract.spec.search)],
    update: [Boolean(contract.update), Boolean(graphql.update)],
    delete: [Boolean(contract.remove), Boolean(graphql.remove)],
    "told of it": [false, false],
    "told of its deletion": [false, false],
    "reads its activity entry": [false, false],
    "matched by the search condition": [false, false],
  };
  if (operation === "matched by the search condition") return ["SQL"];
  // The entries the activity consumer writes for the area's records (where its events have an activity
  // source), read through REST as a feed's reader would open one.
  if (operation === "reads its activity entry") return createsActivity(contract) ? ["REST"] : [];
  // Every record's writes are events: who is told of them, while the record is there and once it is gone (then
  // from what the deletion's event recorded of it), through the outbox. A deletion only where the area deletes.
  if (operation === "told of it") return ["outbox"];
  if (operation === "told of its deletion") return contract.remove || graphql.remove ? ["outbox"] : [];
  const [rest, gql] = has[operation];
  return [...(rest ? (["REST"] as const) : []), ...(gql ? (["GraphQL"] as const) : [])];
}

/**
 * The event area of the contract's records, and whether a record's creation makes an activity entry: the matrix's
 * writes are creations (and updates and deletions); a group's entries come from membership events, which the
 * matrix does not make (it places its callers in each group directly).
 */
const eventAreaOf = (contract: ListContract) => everyWrittenRecords().find((written) => written.records === contract.spec.records)?.area;
const createsActivity = (contract: ListContract) =>
  eventCatalogue().some((entry) => entry.area === eventAreaOf(contract) && entry.type.endsWith("Created") && activitySourceOf(entry.type) !== undefined);

// ---------------------------------------------------------------------------------------------------
// The matrix's size (docs/testing.md): every record of a kind that made the matrix fail once, and as many
// others as MATRIX_RECORDS says, drawn by MATRIX_SEED (new each run, printed in the suite's title, so a run
// that fails can be run again as it was). MATRIX_RECORDS=all seeds every record of every area.

const MATRIX_RECORDS = process.env.MATRIX_RECORDS === "all" ? Infinity : Number(process.env.MATRIX_RECORDS || 10);
if (!(MATRIX_RECORDS >= 1)) throw new Error(`MATRIX_RECORDS must be a number of records per area (at least 1) or "all", not ${process.env.MATRIX_RECORDS}`);
const MATRIX_SEED = Number(process.env.MATRIX_SEED || Math.floor(Math.random() * 2 ** 31));

/**
 * The records that made the matrix fail once, kept in every run whatever its size (each with what it found):
 * - a group's unpublished record, whose manager may change it but not read it: the update answered the
 *   record (0fc710f, fixed in 0a029e0; 24 blog and 6 wiki cells), and a forum's, which its managers moderate
 *   and so read (6bd3a58);
 * - a group's private record, which its invitee and applicant must not see (4c6e7d0);
 * - a member-scope record, whose scope_id is the matrix group's id: a rule that looked at scope_id without
 *   the scope kind showed it to the group (27f975c).
 */
const REGRESSION_RECORDS: ((seed: Omit<Seed, "index">) => boolean)[] = [
  (seed) => seed.scope === "group" && !seed.state.published,
  (seed) => seed.scope === "group" && seed.state.published && seed.access?.name === "private",
  (seed) => seed.scope === "member" && seed.access?.name !== "public",
];


/** The records of one area for this run: the regression records, then others drawn up to MATRIX_RECORDS. */
function sized<T extends Omit<Seed, "index">>(every: T[], area: string): T[] {
  if (every.length <= MATRIX_RECORDS) return every;
  const kept = every.filter((seed) => REGRESSION_RECORDS.some((found) => found(seed)));
  const others = every.filter((seed) => !kept.includes(seed));
  const random = mulberry32(MATRIX_SEED ^ [...area].reduce((hash, letter) => Math.imul(hash, 31) + letter.charCodeAt(0), 7));
  for (let i = others.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [others[i], others[j]] = [others[j]!, others[i]!];
  }
  const chosen = new Set([...kept, ...others.slice(0, Math.max(0, MATRIX_RECORDS - kept.length))]);
  return every.filter((seed) => chosen.has(seed));
}

function planOf(area: Area) {
  const { contract } = area;
  // Only areas whose records users write have creators with rights of their own; elsewhere records are an administrator's.
  const roles = ROLES.filter((role) => role !== "creator" || (contract.writers === "users" && contract.creates !== "administrators"));
  const levels: (Seed["access"] | undefined)[] = contract.access ? contract.access.levels.map((level) => ({ value: level.value, name: level.name })) : [undefined];
  // A list whose path names its scope (a group plugin's) has records in that kind of scope only.
  const scopes: (ScopeKind | null)[] = contract.list.scopeFromPath ? [contract.list.scopeFromPath.kind as ScopeKind] : contract.spec.scoped ? ["site", "group", "hidden group", "member"] : [null];
  const seeds: Seed[] = [];
  // A member scope differs from the site only if a rule took it for a group (the matrix's group shares its
  // scope_id): private records shown to the group's members, or the group's manager changing records. Its
  // published records at every level show both, so it is not crossed with the other publishing states.
  const published = contract.states.find((state) => state.published)!;
  const every: Omit<Seed, "index">[] = [];
  for (const scope of scopes) {
    for (const state of scope === "member" ? [published] : contract.states) for (const access of levels) every.push({ access, state, scope });
  }
  const anonymousField = contract.spec.records.anonymous;
  for (const seed of sized(every, area.area)) seeds.push({ ...seed, index: seeds.length, ...(anonymousField ? { anonymous: seeds.length % 2 === 1 } : {}) });
  const records = contract.spec.records;
  const subject = (seed: Seed): Subject => ({
    model: records.model,
    level: seed.access?.name ?? "public",
    published: seed.state.published,
    scope: seed.scope,
    moderated: Boolean(records.moderatedBy),
    ...(records.isScope ? { group: true } : {}),
    ...(records.administratorsOnly ? { administratorsOnly: true } : {}),
  });
  const writerRole: Role = contract.creates === "administrators" ? "administrator" : contract.writers === "users" ? "creator" : contract.writers === "managers" ? "group manager" : "administrator";
  const expected = (operation: Operation, role: Role, seed: Seed): Answer => {
    const record = subject(seed);
    const known = KNOWN_DISAGREEMENTS.find((entry) => entry.operation === operation && entry.applies(role, record));
    if (known) return known.answer;
    // Reads, lists and totals through the API (REST and GraphQL) are refused before any record is looked at; the
    // search condition (SQL) and the outbox answer by the rule, which shows such a caller nothing.
    const refused = oracle.refusal(role, record);
    if (refused && (operation === "read by id" || operation === "shown in the list" || operation === "counted in the total" || operation === "found by search")) return refused;
    const listed = oracle.mayList(role, record);
    const read = oracle.mayRead(role, record);
    if (operation === "counted in the total") return listed ? "counted" : "not counted";
    // Events are told to whoever may read the record ("readers": docs/events.md), plugin records' to administrators
    // (`managers`, and a site record's managers are the administrators: docs/decisions.md, "Plugins").
    // The actor of a record's creation is its writer; an anonymous record's is shown to them and administrators only.
    if (operation === "told of it") return !read ? "not told" : seed.anonymous && role !== writerRole && role !== "administrator" ? "told, actor hidden" : "told";
    // A deletion's actor (known when it is done: toldOf sets their cells) is shown to administrators only, others than the actor.
    if (operation === "told of its deletion") return !read ? "not told" : seed.anonymous && role !== "administrator" ? "told, actor hidden" : "told";
    if (operation === "reads its activity entry") return "reads none";
    if (operation === "update") return oracle.update(role, record, contract.writers);
    if (operation === "delete") return oracle.write(role, record, contract.writers);
    if (operation === "read by id") return read ? "shown" : "hidden";
    return listed ? "shown" : "hidden";
  };
  const cells = new Map<Operation, Cell[]>();
  for (const operation of OPERATIONS) {
    const list: Cell[] = [];
    for (const transport of transportsOf(area, operation)) {
      for (const seed of seeds) {
        for (const role of roles) {
          // An entry readable ⇒ its record listed: the cells are the callers the record is hidden from, who must
          // read none of its entries (a caller who sees the record may or may not be among the entry's recipients).
          if (operation === "reads its activity entry" && oracle.mayList(role, subject(seed))) continue;
          list.push({ role, seed, transport, operation, expected: expected(operation, role, seed) });
        }
      }
    }
    cells.set(operation, list);
  }
  // The reads without a listing this run expects (a named case's read cells), for the suite's check and its name.
  const namedReads = cells.get("read by id")!.filter((cell) => readsWithoutListing(cell.role, subject(cell.seed)) !== undefined);
  return { roles, seeds, cells, subject, anonymousField, namedReads, all: every.length };
}

/** Runs `tasks` with at most `concurrency` in flight (the server answers several requests at once). */
async function inParallel(tasks: (() => Promise<void>)[], concurrency = 6): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Sends a request again when the connection was closed under it: the client and the server share this
 * process's event loop, and while PGlite keeps the loop busy a pooled keep-alive socket can be reused in
 * the same turn the server closes it as idle (Node's keepAliveTimeout), so the request never reached the
 * server. Anything else, an answer of any status included, is the cell's.
 */
async function resent<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
    if (!(error instanceof TypeError) || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw error;
    return send();
  }
}

/** The cells whose answer is not the oracle's, as a table. */
function mismatches(cells: Cell[]): string {
  const wrong = cells.filter((cell) => cell.got !== cell.expected);
  if (!wrong.length) return "";
  const rows = wrong.map((cell) => [
    cell.role,
    cell.seed.access ? `${cell.seed.access.value} ${cell.seed.access.name}` : "-",
    `${cell.seed.state.name}${cell.seed.anonymous ? ", anonymous author" : ""}`,
    cell.seed.scope ?? "-",
    cell.transport,
    cell.operation,
    cell.expected,
    cell.got ?? "(not run)",
  ]);
  const header = ["caller", "access", "state", "scope", "via", "operation", "expected", "got"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((value, column) => value.padEnd(widths[column]!)).join(" | ");
  return [`${wrong.length} of ${cells.length} cells differ from the oracle:`, line(header), ...rows.map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------------
// The suite, once per area.

const areas = contractAreas("authorization matrix") as Area[];

describe("authorization matrix: the reads without a listing it names are the declared ones", () => {
  it(`each records declaration with a read rule beside its list rule (isScope with the kind's readers) has its case named, and no other (${READS_WITHOUT_LISTING.map((named) => named.model).join(", ")})`, () => {
    const declared = declaredRecords().filter((records) => ownKindOf(records)?.readers !== undefined).map((records) => records.model);
    expect(declared.sort()).toEqual([...new Set(READS_WITHOUT_LISTING.map((named) => named.model))].sort());
    // And the matrix reaches each: an area of its own lists those records.
    for (const { model } of READS_WITHOUT_LISTING) expect(areas.map((area) => area.contract.spec.records.model), model).toContain(model);
  });
});

/**
 * One server for every area of this file: each area writes to a table, or scopes and a group, of its own
 * (its cast's group, its own users), so they share a database; a server's start is ≈0.9 s of CPU.
 */
const serverForAreas = oneServerForFile();

for (const area of areas) {
  const { contract } = area;
  const plan = planOf(area);
  const graphql = graphqlFields(contract);
  const total = [...plan.cells.values()].reduce((sum, cells) => sum + cells.length, 0);

  const drawn = plan.seeds.length < plan.all ? `, ${plan.seeds.length} of ${plan.all} records: MATRIX_SEED=${MATRIX_SEED}, MATRIX_RECORDS=all for every one` : "";
  describe(`${area.area}: authorization matrix (${total} cells: ${plan.roles.length} callers × ${plan.seeds.length} records × operations × transports${drawn})`, () => {
    let server: TestServer;
    const tokens = new Map<Role, string | undefined>();
    /** Each caller as the outbox's readers see them (`readableBy`). */
    const viewers = new Map<Role, Viewer>();
    /** Where each scope kind is: site 0, the matrix's group, the creator's member scope. */
    const scopeOf = new Map<ScopeKind | null, Where>();
    /** Each seed's record: its id, what a PUT sends back to leave it unchanged, and who deleted it. */
    const records = new Map<number, { id: number; stored?: Record<string, unknown>; deletedBy?: Role }>();
    let writerToken: string;
    /**
     * Where the records are groups themselves (`records.isScope`), what puts the matrix's callers in a new one
     * (set once the callers exist): each group record is "the group" its member, manager, invitee and applicant
     * stand in, as the matrix's own group is for other areas' records.
     */
    let placeCallersIn: ((groupId: number) => Promise<void>) | undefined;
    const recordsAreGroups = Boolean(contract.spec.records.isScope);
    if (recordsAreGroups && !["group", "course"].includes(contract.spec.records.isScope!)) {
      throw new Error(`${area.area}: the matrix places its callers in groups and courses only, not in ${contract.spec.records.isScope} scopes`);
    }

    const searchTextOf = (seed: Seed) => `mxq${String(seed.index).padStart(3, "0")}z`;
    const whereOf = (seed: Seed) => scopeOf.get(seed.scope)!;
    /** What a list of the seed's records asks: its scope, and the filters its state is listed under (`listedWith`). */
    const listWhereOf = (seed: Seed): Where => ({ ...whereOf(seed), ...seed.state.listedWith });
    /** One list per scope and list filters: the lists and totals are asked once per key. */
    const listKeyOf = (seed: Seed) => `${seed.scope}|${JSON.stringify(seed.state.listedWith ?? {})}`;
    const listsOf = () => new Map(plan.seeds.map((seed) => [listKeyOf(seed), listWhereOf(seed)]));
    /** A REST record's id (groups': `gidNumber`; plugin records': `extension_id`). */
    const restIdOf = (record: Record<string, unknown> | null | undefined) => record?.[contract.list.idKey ?? "id"];
    const rest = (method: string, path: string, options: RestOptions) => resent(() => server.rest(method, path, options));

    // Each transport answers in the matrix's words.
    type ListAnswer = { ids: number[]; total: number };
    const refusal = (status: number, body: unknown) => (status === 401 || status === 403 || status === 404 ? String(status) : `HTTP ${status} ${JSON.stringify(body)}`);
    const graphqlRefusal = (errors: { message: string; extensions?: { code?: string } }[]) => {
      const code = errors[0]?.extensions?.code;
      const status = { UNAUTHENTICATED: "401", FORBIDDEN: "403", NOT_FOUND: "404" }[code ?? ""];
      return status ?? `GraphQL ${code}: ${errors[0]?.message}`;
    };
    /** A list refused as a whole (401, 403: records only administrators read), else the errors as they came. */
    const graphqlListRefusal = (errors: { message: string; extensions?: { code?: string } }[]) =>
      errors.length === 1 && ["UNAUTHENTICATED", "FORBIDDEN"].includes(errors[0]!.extensions?.code ?? "") ? graphqlRefusal(errors) : `GraphQL ${JSON.stringify(errors)}`;
    const parsed = new Map<string, TypedDocumentNode<Record<string, any>, Record<string, unknown>>>();
    const gql = async (document: string, variables: Record<string, unknown>, token: string | undefined) => {
      if (!parsed.has(document)) parsed.set(document, parse(document));
      return resent(() => server.graphql(parsed.get(document)!, variables, token));
    };

    // The scope's arguments (`scope`/`scopeId`, a twin's `group`, or none), as graphqlScope gives them: the
    // list's always; a record's only under a path's scope (the twins take the group, the others the id alone).
    const listScope = graphqlScope(contract);
    const recordScope = contract.list.scopeFromPath ? listScope : { declarations: "", args: "" };
    const joined = (...parts: string[]) => parts.filter(Boolean).join(", ");
    const withScope = (declarations: string) => joined(recordScope.declarations, declarations);
    const scopedCall = (field: string, args: string) => `${field}(${joined(recordScope.args, args)})`;
    const recordVariables = (seed: Seed) => (contract.list.scopeFromPath ? graphqlScope(contract, whereOf(seed)).variables : {});
    // The list filters some state is listed under (`listedWith`: plugin records' `enabled`), as the list field's
    // arguments of the same names, typed as the schema types them; a seed whose state names none leaves them to their defaults.
    const listFilters = [...new Set(contract.states.flatMap((state) => Object.keys(state.listedWith ?? {})))];
    const listArguments = schema.getQueryType()!.getFields()[contract.list.graphql]!.args;
    const filterDeclarations = listFilters.map((name) => `$${name}: ${listArguments.find((argument) => argument.name === name)!.type.toString()}`);
    const filterVariables = (where: Where) => Object.fromEntries(listFilters.filter((name) => where[name] !== undefined).map((name) => [name, where[name]]));
    const listCall = `${contract.list.graphql}(${joined(listScope.args, `limit: $limit${contract.spec.search ? ", search: $search" : ""}`, ...listFilters.map((name) => `${name}: $${name}`))})`;
    const listDocument = (selection: string) =>
      `query(${joined(listScope.declarations, `$limit: Int${contract.spec.search ? ", $search: String" : ""}`, ...filterDeclarations)}) { list: ${listCall} { ${selection} } }`;

    const transports: Record<
      HttpTransport,
      {
        read(seed: Seed, id: number, token?: string): Promise<Answer>;
        list(where: Where, token: string | undefined, search?: string): Promise<ListAnswer | string>;
        total(where: Where, token: string | undefined): Promise<number | string>;
        update(seed: Seed, token: string | undefined): Promise<Answer>;
        remove(seed: Seed, id: number, token: string | undefined): Promise<Answer>;
      }
    > = {
      REST: {
        async read(seed, id, token) {
          const response = await rest("GET", recordPath(contract.read!.path, id, whereOf(seed)), { token });
          if (response.status === 200 && restIdOf(response.body) === id) return "shown";
          if (response.status === 404 && JSON.stringify(response.body) === JSON.stringify({ message: contract.notFound(id), code: 404 })) return "hidden";
          // Refused before the record is looked at (records only administrators read).
          if (response.status === 401 || response.status === 403) return String(response.status);
          return `HTTP ${response.status} ${JSON.stringify(response.body)}`;
        },
        async list(where, token, search) {
          const request = listRequest(contract, where);
          const response = await rest(request.method, request.path, { query: { ...request.query, limit: 0, ...(search ? { search } : {}) }, token });
          if (response.status !== 200) return refusal(response.status, response.body);
          return { ids: listedRecords(contract, response.body).map((item) => Number(restIdOf(item))), total: listedTotal(contract, response) };
        },
        async total(where, token) {
          const request = listRequest(contract, where);
          const response = await rest(request.method, request.path, { query: { ...request.query, limit: 1 }, token });
          return response.status === 200 ? listedTotal(contract, response) : refusal(response.status, response.body);
        },
        async update(seed, token) {
          const record = records.get(seed.index)!;
          const response = await rest(contract.update!.method, recordPath(contract.update!.path, record.id, whereOf(seed)), { token, body: contract.update!.body(record.stored!) });
          if (response.status === 200 && restIdOf(response.body) === record.id && searchTextIn(response.body)) return "done";
          if (response.status === 204 && response.body === null) return "done, record withheld";
          return refusal(response.status, response.body);
        },
        async remove(seed, id, token) {
          const response = await rest("DELETE", recordPath(contract.remove!.path, id, whereOf(seed)), { token });
          return response.status === 204 ? "done" : refusal(response.status, response.body);
        },
      },
      GraphQL: {
        async read(seed, id, token) {
          const { data, errors } = await gql(`query(${withScope("$id: ID!")}) { record: ${scopedCall(graphql.read!, "id: $id")} { id } }`, { ...recordVariables(seed), id }, token);
          if (Number(data?.record?.id) === id && !errors.length) return "shown";
          if (!data && errors[0]?.extensions?.code === "NOT_FOUND") return "hidden";
          // Refused before the record is looked at (records only administrators read).
          if (!data && errors.length === 1 && ["UNAUTHENTICATED", "FORBIDDEN"].includes(errors[0]!.extensions?.code ?? "")) return graphqlRefusal(errors);
          return `GraphQL ${JSON.stringify({ data, errors })}`;
        },
        async list(where, token, search) {
          const variables = { ...graphqlScope(contract, where).variables, ...filterVariables(where), limit: 0, ...(search ? { search } : {}) };
          const { data, errors } = await gql(listDocument("items { id } total"), variables, token);
          if (errors.length) return graphqlListRefusal(errors);
          return { ids: (data!.list.items as { id: string }[]).map((item) => Number(item.id)), total: data!.list.total };
        },
        async total(where, token) {
          const { data, errors } = await gql(listDocument("total"), { ...graphqlScope(contract, where).variables, ...filterVariables(where), limit: 1 }, token);
          return errors.length ? graphqlListRefusal(errors) : (data!.list.total as number);
        },
        async update(seed, token) {
          const record = records.get(seed.index)!;
          // An empty input changes nothing (GraphQL updates are partial); the selection asks for the record's content.
          const { data, errors } = await gql(
            `mutation(${withScope("$id: ID!")}) { record: ${scopedCall(graphql.update!, "id: $id, input: {}")} { id ${searchFieldOf()} } }`,
            { ...recordVariables(seed), id: record.id },
            token,
          );
          if (errors.length) return graphqlRefusal(errors);
          if (data?.record === null) return "done, record withheld";
          return Number(data?.record?.id) === record.id && searchTextIn(data!.record) ? "done" : `GraphQL ${JSON.stringify(data)}`;
        },
        async remove(seed, id, token) {
          const { data, errors } = await gql(`mutation(${withScope("$id: ID!")}) { record: ${scopedCall(graphql.remove!, "id: $id")} }`, { ...recordVariables(seed), id }, token);
          if (errors.length) return graphqlRefusal(errors);
          return Number(data?.record) === id ? "done" : `GraphQL ${JSON.stringify(data)}`;
        },
      },
    };
    /** The transport of an HTTP operation's cell (the outbox's cells are answered by `toldOf`). */
    const over = (transport: TransportName) => transports[transport as HttpTransport];
    /** The GraphQL name of the field the search text is planted in. */
    const searchFieldOf = () => (contract.searchField ?? "title").replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
    /** Whether a returned record carries its content (the planted search text), not only its id. */
    const searchTextIn = (record: Record<string, unknown>) => String(record[contract.searchField ?? "title"] ?? record[searchFieldOf()] ?? "").includes("mxq");

    const makeRecord = async (seed: Seed) => {
      const values = {
        ...whereOf(seed),
        ...seed.state.values,
        // The level in the field the records keep it in (`access`; groups' `discoverability`).
        ...(seed.access ? { [accessFieldOf(contract.spec.records)]: seed.access.value } : {}),
        ...(seed.anonymous ? { [plan.anonymousField!]: 1 } : {}),
        [contract.searchField ?? "title"]: `Matrix ${searchTextOf(seed)}`,
      };
      const id = await resent(() => area.create(server, writerToken, values));
      // A group: its people, before anyone counts it (the totals are measured once the record is made).
      if (recordsAreGroups) await placeCallersIn!(id);
      return id;
    };

    beforeAll(async () => {
      server = await serverForAreas();
      const [admin, user, other, creator, member, manager, invitee, applicant] = await Promise.all([
        server.user({ admin: true }),
        server.user(),
        server.user(),
        server.user(),
        server.user(),
        server.user(),
        server.user(),
        server.user(),
      ]);
      // The matrix's group has the creator's id, so its records and the creator's member scope share a
      // scope_id: a rule that looked at scope_id without the scope kind would show in the member-scope cells.
      // (Not server.cast: its group's id is whatever the sequence gives.) The "other user" manages another group.
      const db = server.app.db.prisma;
      // A cn holds letters and digits only (forum-categories → matrixforumcategories).
      const cn = `matrix${area.area.replace(/[^a-z0-9]/g, "")}`;
      const group = await db.group.create({ data: { id: creator.id, cn, title: "The matrix's group" } });
      const otherGroup = await db.group.create({ data: { id: creator.id + 100_000, cn: `${cn}other`, title: "Another group" } });
      // The same people in a hidden group (discoverability 1): its content is secluded from everyone else.
      const hiddenGroup = await db.group.create({ data: { id: creator.id + 200_000, cn: `${cn}hidden`, title: "The matrix's hidden group", discoverability: 1 } });
      /** The group's callers: its member, manager, invitee and applicant (no one else stands in it). */
      const peopleOf = (groupId: number) => [
        { groupId, userId: member.id, status: "member" as const },
        { groupId, userId: manager.id, status: "member" as const, manager: true },
        { groupId, userId: invitee.id, status: "invitee" as const },
        { groupId, userId: applicant.id, status: "applicant" as const },
      ];
      await db.groupMember.createMany({
        data: [
          // The creator belongs to the matrix's groups: they write their records there.
          ...[group, hiddenGroup].flatMap(({ id: groupId }) => [{ groupId, userId: creator.id, status: "member" as const }, ...peopleOf(groupId)]),
          { groupId: otherGroup.id, userId: other.id, status: "member", manager: true },
        ],
      });
      if (contract.spec.records.isScope === "group") {
        // The groups the matrix makes through POST /groups take their ids from the sequence, its own groups above
        // theirs (users' ids, + 100,000, + 200,000): start the sequence beyond those so the two never meet.
        await sqlClientOf(db).query(Prisma.sql`SELECT setval(pg_get_serial_sequence('groups', 'id'), GREATEST((SELECT max(id) FROM groups), 1000000))`);
        // A group record's creator, made its first manager by the create, leaves it: being its creator gives no
        // right after that (docs/decisions.md, "Who changes a group"), so the creator's cells show exactly that.
        placeCallersIn = async (groupId) => {
          await db.groupMember.delete({ where: { groupId_userId: { groupId, userId: creator.id } } });
          await db.groupMember.createMany({ data: peopleOf(groupId) });
        };
      }
      if (contract.spec.records.isScope === "course") {
        // A course record is "the group" its learner (the member) and manager stand in; an administrator made it,
        // and nobody stands at its door (no invitations nor requests: the invitee and applicant are bystanders).
        placeCallersIn = async (courseId) => {
          await db.courseMember.createMany({
            data: [
              { courseId, userId: member.id, role: "learner" },
              { courseId, userId: manager.id, role: "manager" },
            ],
          });
        };
      }
      // Records are made by their creator where users write them, by an administrator elsewhere.
      writerToken = contract.writers === "users" && contract.creates !== "administrators" ? creator.token : admin.token;
      const userOf: Record<Role, typeof admin | null> = {
        anonymous: null,
        user,
        "other user": other,
        creator,
        "group invitee": invitee,
        "group applicant": applicant,
        "group member": member,
        "group manager": manager,
        administrator: admin,
      };
      for (const role of plan.roles) {
        const caller = userOf[role];
        tokens.set(role, caller?.token);
        viewers.set(role, caller ? { user: { id: caller.id, username: caller.username, isAdmin: role === "administrator" }, via: "token" } : { user: null, via: "anonymous" });
      }
      scopeOf.set("site", { scope: "site", scope_id: 0 });
      scopeOf.set("group", contract.list.scopeFromPath ? { [contract.list.scopeFromPath.placeholder]: String(group.id) } : { scope: "group", scope_id: group.id });
      scopeOf.set("hidden group", contract.list.scopeFromPath ? { [contract.list.scopeFromPath.placeholder]: String(hiddenGroup.id) } : { scope: "group", scope_id: hiddenGroup.id });
      scopeOf.set("member", { scope: "member", scope_id: creator.id });
      scopeOf.set(null, {});

      // Seed the records one by one; after each, every caller's total of its list (its scope, and the filters its
      // state is listed under), through both transports, must have grown by one exactly when the oracle says the
      // caller may see the record.
      const totalCells = plan.cells.get("counted in the total")!;
      const last = new Map<string, number | string>();
      const keyOf = (list: string, role: Role, transport: TransportName) => `${list}|${role}|${transport}`;
      const measure = async (list: string, where: Where) => {
        const now = new Map<string, number | string>();
        await Promise.all(
          plan.roles.flatMap((role) =>
            transportsOf(area, "counted in the total").map(async (transport) => {
              now.set(keyOf(list, role, transport), await over(transport).total(where, tokens.get(role)));
            }),
          ),
        );
        return now;
      };
      for (const [list, where] of listsOf()) for (const [key, value] of await measure(list, where)) last.set(key, value);
      for (const seed of plan.seeds) {
        const id = await makeRecord(seed);
        records.set(seed.index, { id });
        const now = await measure(listKeyOf(seed), listWhereOf(seed));
        for (const cell of totalCells.filter((candidate) => candidate.seed === seed)) {
          const key = keyOf(listKeyOf(seed), cell.role, cell.transport);
          const [before, after] = [last.get(key)!, now.get(key)!];
          cell.got =
            typeof before === "number" && typeof after === "number"
              ? after - before === 1
                ? "counted"
                : after === before
                  ? "not counted"
                  : `total went from ${before} to ${after}`
              : before === after
                ? String(after) // refused before and after alike (401, 403)
                : `${before} → ${after}`;
          last.set(key, after);
        }
      }
      // What a PUT sends back to leave each record as it is.
      if (contract.read && contract.update) {
        await inParallel(
          plan.seeds.map((seed) => async () => {
            const record = records.get(seed.index)!;
            record.stored = (await rest("GET", recordPath(contract.read!.path, record.id, whereOf(seed)), { token: admin.token })).body;
          }),
        );
      }
    }, TIMEOUT);

    const check = (operation: Operation) => {
      const cells = plan.cells.get(operation)!;
      expect(cells.length).toBeGreaterThan(0);
      const report = mismatches(cells);
      expect(report, report).toBe("");
    };
    const countOf = (operation: Operation) => plan.cells.get(operation)!.length;
    const runEach = (operation: Operation, run: (cell: Cell) => Promise<Answer>) =>
      inParallel(plan.cells.get(operation)!.map((cell) => async () => void (cell.got = await run(cell))));

    it(`read by id: ${countOf("read by id")} cells`, async () => {
      await runEach("read by id", (cell) => over(cell.transport).read(cell.seed, records.get(cell.seed.index)!.id, tokens.get(cell.role)));
      check("read by id");
    }, TIMEOUT);

    it(`shown in the list: ${countOf("shown in the list")} cells`, async () => {
      const lists = new Map<string, ListAnswer | string>();
      await inParallel(
        [...listsOf()].flatMap(([key, where]) =>
          plan.roles.flatMap((role) =>
            (["REST", "GraphQL"] as const).map((transport) => async () => {
              lists.set(`${key}|${role}|${transport}`, await transports[transport].list(where, tokens.get(role)));
            }),
          ),
        ),
      );
      for (const cell of plan.cells.get("shown in the list")!) {
        const list = lists.get(`${listKeyOf(cell.seed)}|${cell.role}|${cell.transport}`)!;
        cell.got = typeof list === "string" ? list : list.ids.includes(records.get(cell.seed.index)!.id) ? "shown" : "hidden";
      }
      check("shown in the list");
    }, TIMEOUT);

    // Not the oracle's word but the answers themselves: a caller who read a record by id and did not find it in
    // its list (same transport) is one of the named reads without a listing, and each named one was seen.
    const named = plan.namedReads.length
      ? `${plan.namedReads.length} cells, all named: ${[...new Set(plan.namedReads.map((cell) => readsWithoutListing(cell.role, plan.subject(cell.seed))!.name))].join("; ")}`
      : "none named here";
    it(`reads without a listing: only the named ones (${named})`, () => {
      const key = (cell: Cell) => `${cell.role}|${cell.seed.index}|${cell.transport}`;
      const listed = new Map(plan.cells.get("shown in the list")!.map((cell) => [key(cell), cell.got]));
      const unlisted = plan.cells.get("read by id")!.filter((cell) => cell.got === "shown" && listed.get(key(cell)) === "hidden");
      const said = (cell: Cell) =>
        `${cell.role} · ${cell.seed.access?.name ?? "-"} · ${cell.seed.state.name} · ${cell.seed.scope ?? "-"} · ${cell.transport}: read ${cell.got}, in the list ${listed.get(key(cell))}`;
      expect(unlisted.filter((cell) => !plan.namedReads.includes(cell)).map(said), "reads without a listing that no case names (READS_WITHOUT_LISTING)").toEqual([]);
      expect(plan.namedReads.filter((cell) => !unlisted.includes(cell)).map(said), "named reads without a listing that did not happen").toEqual([]);
    });

    it(`counted in the total: ${countOf("counted in the total")} cells (each record's effect on every caller's total)`, () => {
      check("counted in the total");
    });

    if (contract.spec.search) {
      it(`found by search: ${countOf("found by search")} cells`, async () => {
        await runEach("found by search", async (cell) => {
          const list = await over(cell.transport).list(listWhereOf(cell.seed), tokens.get(cell.role), searchTextOf(cell.seed));
          if (typeof list === "string") return list;
          const found = list.ids.includes(records.get(cell.seed.index)!.id);
          // The search's total counts what it shows: the text is the record's alone.
          if (list.total !== list.ids.length || list.ids.length > 1) return `${list.ids.length} shown, total ${list.total}`;
          return found ? "shown" : "hidden";
        });
        check("found by search");
      }, TIMEOUT);
    }

    it(`matched by the search condition: ${countOf("matched by the search condition")} cells (what a search index's hit must pass: the area's rule on the live record)`, async () => {
      const db = server.app.db.prisma;
      const ids = plan.seeds.map((seed) => records.get(seed.index)!.id);
      const matched = new Map<Role, Set<number>>();
      await inParallel(
        plan.roles.map((role) => async () => {
          const rows = await sqlClientOf(db).query<{ id: number }>(
            Prisma.sql`SELECT s.id FROM unnest(${ids}::int[]) AS s(id) WHERE ${searchConditionSql(db, contract.spec.records, viewers.get(role)!, Prisma.sql`s.id`)}`,
          );
          matched.set(role, new Set(rows.map((row) => row.id)));
        }),
      );
      for (const cell of plan.cells.get("matched by the search condition")!) cell.got = matched.get(cell.role)!.has(records.get(cell.seed.index)!.id) ? "shown" : "hidden";
      check("matched by the search condition");
    }, TIMEOUT);

    /**
     * Who is told of each record's events (subscriptions, webhooks, the activity fan-out all ask `readableBy`):
     * every event of the record, written for its readers, to exactly the callers the oracle lets see it.
     */
    const toldOf = async (operation: Operation, eventsOf: (seed: Seed, events: StoredEvent[]) => StoredEvent[]) => {
      const sql = sqlClientOf(server.app.db.prisma);
      await allEventsReadable(sql);
      const outbox: StoredEvent[] = [];
      for (let cursor = OUTBOX_START; ; ) {
        const read = await readCommittedEvents(sql, cursor, 500);
        if (!read.events.length) break;
        // Every audience: `readers` (whoever may read the record) and `managers` (plugin records': their managers,
        // who for a site record are the administrators); the matrix makes no membership events (requests,
        // invitations, and the `listers` events of joins, leaves and promotions: src/groups/membership.test.ts).
        outbox.push(...read.events.filter((event) => writtenRecordsOf(event.area)?.records === contract.spec.records));
        cursor = read.cursor;
      }
      const perSeed = new Map(plan.seeds.map((seed) => [seed.index, eventsOf(seed, outbox)]));
      const told = await readableBy(server.app.db.prisma, plan.roles.map((role) => viewers.get(role)!), [...perSeed.values()].flat());
      for (const cell of plan.cells.get(operation)!) {
        const events = perSeed.get(cell.seed.index)!;
        const viewer = viewers.get(cell.role)!;
        const heard = events.filter((event) => told.get(viewerKey(viewer))!.has(event.id));
        // What a subscriber is shown of each (shownTo): the actor, or null where the record hides its author from them.
        const actorHidden = heard.filter((event) => event.actorId !== null && shownTo(viewer, event).actorId === null).length;
        const actor = actorHidden === 0 ? "" : actorHidden === heard.length ? ", actor hidden" : `, actor hidden in ${actorHidden} of ${heard.length}`;
        cell.got = !events.length ? "no event" : heard.length === events.length ? `told${actor}` : heard.length === 0 ? "not told" : `told of ${heard.length} of ${events.length} events`;
      }
      check(operation);
    };

    it(`told of it: ${countOf("told of it")} cells (every event of the record, to each caller)`, async () => {
      await toldOf("told of it", (seed, events) => events.filter((event) => event.recordId === records.get(seed.index)!.id));
    }, TIMEOUT);

    if (countOf("reads its activity entry")) {
      it(`reads its activity entry: ${countOf("reads its activity entry")} cells (an entry readable ⇒ its record listed: none for the callers it is hidden from)`, async () => {
        const db = server.app.db.prisma;
        await allEventsReadable(sqlClientOf(db));
        const ids = plan.seeds.map((seed) => records.get(seed.index)!.id);
        const entriesNow = () =>
          sqlClientOf(db).query<{ id: number; record: number }>(
            Prisma.sql`SELECT id, source_record AS record FROM activity WHERE source_area = ${eventAreaOf(contract)!} AND source_record = ANY(${ids}::int[])`,
          );
        // Until every seeded record has its creation's entry: the server's own dispatcher may hold the consumer
        // (a drain then answers at once, busy), so drain and look again, for up to 30 s.
        let entries = await entriesNow();
        for (const started = Date.now(); new Set(entries.map((entry) => entry.record)).size < ids.length && Date.now() - started < 30_000; entries = await entriesNow()) {
          await drainAll(db, ACTIVITY_CONSUMER);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(new Set(entries.map((entry) => entry.record)).size, "every seeded record's creation has its activity entry").toBe(ids.length);
        const entriesOf = (seed: Seed) => entries.filter((entry) => entry.record === records.get(seed.index)!.id).map((entry) => entry.id);
        const reads = async (entry: number, role: Role) => (await rest("GET", `/activity/${entry}`, { token: tokens.get(role) })).status;
        // Not vacuous: entries exist (above), and the writer reads one (where an administrator writes, that proves little more).
        const writer = contract.writers === "users" ? "creator" : "administrator";
        expect(await reads(entries[0]!.id, writer)).toBe(200);
        await runEach("reads its activity entry", async (cell) => {
          const statuses = await Promise.all(entriesOf(cell.seed).map((entry) => reads(entry, cell.role)));
          const odd = statuses.find((status) => status !== 200 && status !== 404);
          if (odd) return `HTTP ${odd}`;
          const read = statuses.filter((status) => status === 200).length;
          return read ? `reads ${read} of ${statuses.length}` : "reads none";
        });
        check("reads its activity entry");
      }, TIMEOUT);
    }

    if (countOf("update")) {
      it(`update: ${countOf("update")} cells (each sends the record back unchanged)`, async () => {
        await runEach("update", (cell) => over(cell.transport).update(cell.seed, tokens.get(cell.role)));
        check("update");
      }, TIMEOUT);
    }

    if (countOf("delete")) {
      it(`delete: ${countOf("delete")} cells (refusals first, then a fresh copy of the record for each delete)`, async () => {
        const cells = plan.cells.get("delete")!;
        // Per record, in order: the callers expected to be refused, then those expected to delete it; every other
        // record is deleted first by an administrator, so its author is told of a deletion that is not theirs.
        const firstDeleter = (seed: Seed, cell: Cell) => Number(seed.index % 2 === 1 && cell.role === "administrator");
        await inParallel(
          plan.seeds.map((seed) => async () => {
            const mine = cells
              .filter((cell) => cell.seed === seed)
              .sort((a, b) => Number(a.expected === "done") - Number(b.expected === "done") || firstDeleter(seed, b) - firstDeleter(seed, a));
            let live: number | null = records.get(seed.index)!.id;
            for (const cell of mine) {
              live ??= await makeRecord(seed);
              cell.got = await over(cell.transport).remove(seed, live, tokens.get(cell.role));
              if (cell.got === "done" && live === records.get(seed.index)!.id) records.get(seed.index)!.deletedBy = cell.role;
              if (cell.got === "done") live = null;
            }
          }),
        );
        check("delete");
      }, TIMEOUT);

      // The record is gone: who is told is decided from what its deletion's event recorded of it.
      // The known disagreements this area's cells meet (each named once, with its count).
      const knownCellsOf = (entry: (typeof KNOWN_DISAGREEMENTS)[number]) =>
        plan.cells.get("told of its deletion")!.filter((cell) => entry.operation === "told of its deletion" && entry.applies(cell.role, plan.subject(cell.seed))).length;
      const known = KNOWN_DISAGREEMENTS.filter((entry) => knownCellsOf(entry) > 0);
      const knownNote = known.length ? ` (${known.map((entry) => `${knownCellsOf(entry)} known to differ: ${entry.why}`).join("; ")})` : "";
      it(`told of its deletion: ${countOf("told of its deletion")} cells${knownNote}`, async () => {
        // Whoever deleted it is told of it, as of any event they caused, whatever they could see.
        for (const cell of plan.cells.get("told of its deletion")!) if (records.get(cell.seed.index)!.deletedBy === cell.role) cell.expected = "told";
        await toldOf("told of its deletion", (seed, events) => events.filter((event) => event.recordId === records.get(seed.index)!.id && event.type.endsWith("Deleted")));
      }, TIMEOUT);
    }
  });
}
