import { Prisma } from "../generated/prisma/client.js";
import { prismaDatamodel } from "./datamodel.js";
import { sqlOf, type RequestContext } from "./context.js";
import { badInput, conflict as conflictError, notFound } from "./errors.js";
import { columnValues, fieldTable, type FieldTable } from "./fields.js";
import { domainEvents, type EventType } from "./events.js";
import { pagedList } from "./paging.js";
import { DEFAULT_SCOPE, listSpec, type ListArgs, type Page } from "./list-spec.js";
import { changedRecord, createdRecord, findVisible } from "./record-reads.js";
import { column, modelInfo } from "./model.js";
import { declaredRecords, records } from "./records.js";
import { type Selection } from "./row-reading.js";
import { assertCanWriteInScope, requireAdministrator, requireUser, resolveCreator, type ScopeRule } from "./scopes.js";
import { assertNameFree, createWithUniqueName, takenNames } from "./slug.js";
import { assertPublishingWindow, changesNothing, parseId, parseInput } from "./validation.js";
import { changeRecord, createRecord, deleteRecord, deleteScopeRecords, inWriteTransaction } from "./write-path.js";
import { insertStatement, updateStatement } from "./write-statements.js";
import { writtenRecords } from "./written-records.js";
import { writeFailure } from "./database-errors.js";
import { registerScopeContent, removeScopeContents } from "./scope-content.js";
import { scopeKindIfRegistered } from "./scope-kinds.js";
import { registerActivityRevision, registerActivitySource } from "./activity-sources.js";
import type { AnyArea, Area, AreaDeclaration, Query } from "./area-declaration.js";
import { withModelScalars } from "./shown-fields.js";
import { listFilters, nounOf } from "./area-lists.js";
import { checkOptions, checkParts } from "./area-checks.js";

/**
 * An area as ONE declaration (issue 27, item 4; docs/adding-an-area.md): its model, its fields, who sees
 * its records, its list, its events and its REST operations. The kit makes the rest from it:
 * - the service: `list`, `read`, `create`, `update`, `remove` (the contract's rules: visibility, the
 *   creator, the scope's writers, the publishing window, a name unique in its scope, the write path's
 *   events), so an area writes only what is its own;
 * - the GraphQL type, its root fields and inputs (src/graphql/area.ts);
 * - the REST rows, their documents and so the OpenAPI entries (rest-facade/area-rows.ts);
 * - a deleted group's records going with it, each with its event, and the activity feed's entries.
 * Defining an area registers it (`declaredAreas`); src/areas.ts imports each area's file (the registry).
 */

const areas = new Map<string, AnyArea>();

/** Every area defined so far, by area name. */
export const declaredAreas = (): AnyArea[] => [...areas.values()].sort((a, b) => a.area.localeCompare(b.area));

function eventNamed(area: string, events: Record<string, unknown>, ending: string): EventType {
  const names = Object.keys(events).filter((name) => name.endsWith(ending));
  if (names.length !== 1) throw new Error(`area ${area}: events must name exactly one …${ending} event, not ${names.length}`);
  return `${area}.${names[0]}` as EventType;
}

/** Declares an area (see above): checks it, registers it and answers it with the service the kit makes from it. */
export function defineArea<const T extends FieldTable, const E extends string>(declaration: AreaDeclaration<T, E>): Area<T, E> {
  if (areas.has(declaration.area)) throw new Error(`area ${declaration.area} is defined twice`);
  checkOptions(declaration);
  // The records declaration, or one the area's folder made already (groups: its identity module reads it too).
  const policy = "model" in declaration.policy ? declaration.policy : records({ model: declaration.model, ...declaration.policy });
  if (policy.model !== declaration.model) throw new Error(`area ${declaration.area}: its policy is ${policy.model}'s, not ${declaration.model}'s`);
  const list = declaration.list;
  const spec = list && listSpec({ records: policy, sortColumns: list.sortColumns, defaults: list.defaults, search: list.search });
  const table = fieldTable(declaration.fields);
  const events = declaration.events;
  checkParts(declaration);
  const eventsByName = events && (domainEvents(declaration.area, events) as Record<E, EventType>);
  const eventTypes = events && {
    created: eventNamed(declaration.area, events, "Created"),
    updated: eventNamed(declaration.area, events, "Updated"),
    deleted: eventNamed(declaration.area, events, "Deleted"),
  };
  const missing = (id: number | string) => `${declaration.label} ${id} not found.`;
  /** A write's record id from what names it (a key: 404 for one the caller may not know). */
  const idFrom = (ctx: RequestContext, named: number | string): Promise<number> | number =>
    declaration.key ? declaration.key.idOf(ctx, String(named)) : typeof named === "string" ? parseId(named) : named;
  const writes = events && writtenRecords({
    area: declaration.area,
    changedSubscription: `${declaration.model[0]!.toLowerCase()}${declaration.model.slice(1)}Changed`,
    records: policy,
    names: declaration.writes.names,
    notFound: missing,
    forbidden: declaration.writes.forbidden,
    ...(declaration.writes.actorOnlyNames ? { actorOnlyNames: declaration.writes.actorOnlyNames } : {}),
  });
  const { uniqueName, fields } = declaration;
  const byAdministrators = declaration.writes.by === "administrators";
  const writer = (ctx: RequestContext) => (byAdministrators ? requireAdministrator(ctx, declaration.writes.forbidden) : requireUser(ctx));
  // Written by the scope's managers only: the kit's default lets a record's creator change it too, and a
  // member who was a manager once is no longer one. So the locked row's scope must be managed by the caller
  // (administrators pass), asked in the write's transaction; a record the caller cannot see stays a 404.
  const managed: ScopeRule | undefined = declaration.writes.by === "managers" ? { rule: "managers", refused: declaration.writes.forbidden } : undefined;
  const authorize = managed
    ? (locked: { __visible: boolean; __manages: boolean; id?: unknown }) => {
        if (!locked.__visible && !locked.__manages) throw notFound(missing(Number(locked.id)));
      }
    : undefined;
  const assertManaged = (tx: RequestContext, row: Record<string, unknown>) =>
    managed ? assertCanWriteInScope(tx, row.scope as string, row.scopeId as number, managed) : Promise.resolve();
  const takes = (field: string) => Object.hasOwn(fields, field);
  const takenIn = (ctx: RequestContext, scope: { scope: string; scopeId: number }, exceptId?: number) =>
    takenNames(ctx, policy, uniqueName!.field, scope, exceptId);
  const conflict = declaration.writes.conflict ?? (uniqueName ? { parameter: uniqueName.field, message: uniqueName.taken, column: uniqueName.field } : undefined);
  // Records only administrators read: reads and lists refuse anyone else (401, 403) rather than find nothing.
  const reader = (ctx: RequestContext) => {
    if (policy.administratorsOnly) requireAdministrator(ctx, declaration.writes.forbidden);
  };
  const { filtersOf, assertNamedRecords, namesRecords } = listFilters(list?.filters);
  const within = declaration.within;
  /** The parent's scope (within): its row, held FOR KEY SHARE inside a write's transaction; null where there is none. */
  const parentScope = (ctx: RequestContext, id: number, lock: boolean) => scopeOfRecord(ctx, within!.model, id, lock);
  /** A record's scope (within, references): its row, held FOR KEY SHARE inside a write's transaction; null where there is none. */
  const scopeOfRecord = async (ctx: RequestContext, model: Prisma.ModelName, id: number, lock: boolean): Promise<{ scope: string; scopeId: number } | null> => {
    const table = Prisma.raw(modelInfo(ctx.db, model).table);
    const [parent] = await sqlOf(ctx).query<{ scope: string; scope_id: number }>(
      Prisma.sql`SELECT scope, scope_id FROM ${table} WHERE id = ${id}${lock ? Prisma.sql` FOR KEY SHARE` : Prisma.empty}`,
    );
    return parent ? { scope: parent.scope, scopeId: parent.scope_id } : null;
  };
  /** Refuses (409 naming the parent field) a move of a record that other areas' records are `within` (a unit's asset groups). */
  const assertNothingWithin = async (ctx: RequestContext, id: number) => {
    for (const child of [...areas.values()].filter((candidate) => candidate.within?.model === declaration.model)) {
      const info = modelInfo(ctx.db, child.model);
      const [held] = await sqlOf(ctx).query<{ held: boolean }>(
        Prisma.sql`SELECT EXISTS (SELECT 1 FROM ${Prisma.raw(info.table)} t WHERE ${column(info, "t", child.within!.field)} = ${id}) AS held`,
      );
      if (held!.held) throw conflictError(within!.field, `This ${nounOf(declaration.label)} holds ${nounOf(child.label)}s: one in no ${nounOf(within!.label)} joins one while it holds nothing.`);
    }
  };
  /** Each reference the write names (or keeps, when the record moves) must be a record of the record's scope. */
  const assertReferencesIn = async (ctx: RequestContext, scope: { scope: string; scopeId: number }, named: Record<string, unknown>, lock: boolean) => {
    for (const reference of declaration.references ?? []) {
      const id = named[reference.field];
      if (id == null) continue;
      const found = await scopeOfRecord(ctx, reference.model, id as number, lock);
      if (!found || found.scope !== scope.scope || found.scopeId !== scope.scopeId) {
        throw badInput(reference.field, `${reference.label} ${String(id)} does not exist in this ${nounOf(declaration.label)}'s scope.`);
      }
    }
  };
  const window = policy.window;
  // Who wrote a record: the creator the policy names, else the model's `createdById` where it keeps one (citations).
  const hasCreatedById = prismaDatamodel().datamodel.models[declaration.model]?.fields.some((field) => field.name === "createdById");
  const creator = policy.creator ?? (hasCreatedById ? "createdById" : undefined);

  /** A part the declaration may leave out (a list, events), asked for where the area has none: a programming error. */
  const part = <V>(value: V | undefined, what: string): V => {
    if (value === undefined) throw new Error(`area ${declaration.area} declares no ${what}`);
    return value;
  };
  const area: Area<T, E> = {
    ...declaration,
    shownFields: withModelScalars(
      declaration.model,
      declaration.shown,
      [...(declaration.hidden ?? []), ...(policy.searchOnly ?? [])],
      Object.entries(declaration.fields).flatMap(([name, field]) => (field.column === false ? [] : [field.column ?? name])),
    ),
    records: policy,
    get listSpec() {
      return part(spec, "list");
    },
    table,
    get writesOf() {
      return part(writes, "events");
    },
    get eventTypes() {
      return part(eventTypes, "events");
    },
    get eventsNamed() {
      return part(eventsByName, "events");
    },
    listRecords<R>(ctx: RequestContext, args: ListArgs, query: Query = {}): Page<R> {
      reader(ctx);
      const { values, conditions } = filtersOf(ctx, args as Record<string, unknown>);
      const page = pagedList<R>(part(spec, "list"), ctx, args, query as Selection, values, conditions);
      if (!namesRecords) return page;
      let known: Promise<void> | undefined;
      const checked = () => (known ??= assertNamedRecords(ctx, args as ListArgs & Record<string, unknown>, values));
      return { items: async () => (await checked(), page.items()), total: async () => (await checked(), page.total()) };
    },
    async readRecord<R>(ctx: RequestContext, id: number | string, query: Query = {}) {
      reader(ctx);
      const key = declaration.key;
      const row = await findVisible<R>(ctx, policy, key ? key.sql(key.parse(String(id)) as never, "t") : await idFrom(ctx, id), query as Selection);
      if (!row) throw notFound(missing(key ? String(id).trim() : id));
      return row;
    },
    async createRecord<R>(ctx: RequestContext, input: Record<string, unknown>, selected: Query = {}) {
      const query = selected as Selection;
      const user = declaration.writes.creates === "administrators" ? requireAdministrator(ctx, `Only administrators can create a ${nounOf(declaration.label)}.`) : writer(ctx);
      const data = parseInput(table.create, input) as Record<string, unknown>;
      const values: Record<string, unknown> = { ...columnValues(table, data, "create") };
      if (creator) values[creator] = takes("createdBy") ? await resolveCreator(ctx, data.createdBy as number | null | undefined, user.id) : user.id;
      if (window) {
        values[window.up] = (data[window.up] as Date | undefined) ?? new Date();
        assertPublishingWindow(values[window.up] as Date, data[window.down] as Date | null | undefined);
      }
      Object.assign(values, declaration.writes.derived?.(data));
      if (within && data[within.field] == null && within.optional) Object.assign(values, DEFAULT_SCOPE);
      else if (within) {
        // A parent the caller may not see (in a closed course, a hidden group) does not exist for them, as one
        // that does not: the answer names the parent's field either way, and tells nothing of its scope.
        const parentRecords = declaredRecords().find((declared) => declared.model === within.model);
        // A programming error, not a caller's: a parent is a record some area declares.
        if (!parentRecords) throw new Error(`area ${declaration.area}: within names ${within.model}, whose records no area declares`);
        const parent = await findVisible<{ scope: string; scopeId: number }>(ctx, parentRecords, data[within.field] as number);
        if (!parent) throw badInput(within.field, `${within.label} ${String(data[within.field])} does not exist.`);
        Object.assign(values, { scope: parent.scope, scopeId: parent.scopeId });
      }
      const scope = policy.scoped ? { scope: values.scope as string, scopeId: values.scopeId as number, ...(managed ? { admits: managed } : {}) } : undefined;
      if (scope) await assertReferencesIn(ctx, scope, data, false);
      const insert = (extra: Record<string, unknown>) =>
        createRecord<{ id: number }>(ctx, part(writes, "events"), {
          event: part(eventTypes, "events").created,
          scope,
          answer: { query, relations: declaration.inserts?.relations },
          inserted: declaration.inserts
            ? declaration.inserts.statement(ctx, policy, { ...values, ...extra }, data, user.id)
            : Prisma.sql`created AS (${insertStatement(ctx, policy, { ...values, ...extra }, uniqueName ? { skipConflictOn: ["scope", "scopeId", uniqueName.field] } : {})})`,
        });
      const alongside = declaration.writes.alongside;
      if (alongside) {
        // The record and what it makes beside it commit together: one write transaction.
        const made = await inWriteTransaction(ctx, async (tx) => {
          const row = await createRecord<{ id: number; scope?: string; scopeId?: number }>(tx, part(writes, "events"), {
            event: part(eventTypes, "events").created,
            scope,
            inserted: Prisma.sql`created AS (${insertStatement(tx, policy, values)})`,
          }).catch(writeFailure({ conflict }));
          if (!row) throw conflictError(conflict?.parameter ?? "id", conflict?.message ?? "This record exists already.");
          await alongside(tx, row);
          return row.id;
        });
        return createdRecord<R>(ctx, policy, made, query);
      }
      const created = uniqueName
        ? await createWithUniqueName({
            requested: data[uniqueName.field] as string | undefined,
            derivedFrom: uniqueName.derive(data),
            separator: uniqueName.separator,
            parameter: uniqueName.field,
            label: uniqueName.label,
            taken: takenIn(ctx, scope!),
            insert: (name) => insert({ [uniqueName.field]: name }),
          })
        : await insert({}).catch(writeFailure({ conflict }));
      // Nothing inserted: the statement's ON CONFLICT DO NOTHING met a taken unique value (a group's cn).
      if (!created) throw conflictError(conflict?.parameter ?? "id", declaration.inserts?.taken?.(data) ?? conflict?.message ?? "This record exists already.");
      return createdRecord<R>(ctx, policy, created, query);
    },
    async updateRecord<R>(ctx: RequestContext, named: number | string, input: Record<string, unknown>, query: Query = {}) {
      const user = writer(ctx);
      const data = parseInput(table.update, input) as Record<string, unknown>;
      const id = await idFrom(ctx, named);
      await changeRecord<Record<string, unknown> & { id: number }>(ctx, part(writes, "events"), id, {
        event: part(eventTypes, "events").updated,
        authorize: authorize && ((locked) => authorize({ ...locked, id })),
        async change(tx, row) {
          await assertManaged(tx, row);
          if (changesNothing(data)) return { row, changed: [] };
          const values: Record<string, unknown> = { ...declaration.writes.derived?.(data, row) };
          // Within a parent: to another parent of the record's own scope only (its children keep their scope); a
          // record in no parent yet (`optional`: the site's) joins the named parent's scope, and never leaves it.
          const parent = within && (data[within.field] as number | null | undefined);
          if (within && parent === null && row[within.field] != null) throw badInput(within.field, `A ${nounOf(declaration.label)} in a ${nounOf(within.label)} stays in one.`);
          const joined = within?.optional && parent != null && row[within.field] == null ? await parentScope(tx, parent, true) : undefined;
          if (joined === null) throw badInput(within!.field, `${within!.label} ${parent} does not exist.`);
          // What is within it would stay behind in the site's scope: it joins empty (docs/decisions.md, "The course outline").
          if (joined) await assertNothingWithin(tx, id);
          const scope = policy.scoped
            ? joined ?? { scope: (data.scope as string) ?? row.scope, scopeId: (data.scopeId as number) ?? row.scopeId }
            : undefined;
          const moved = scope !== undefined && (scope.scope !== row.scope || scope.scopeId !== row.scopeId);
          if (moved && declaration.writes.staysInScope) throw badInput("scope", declaration.writes.staysInScope);
          if (moved) await assertCanWriteInScope(tx, scope.scope, scope.scopeId, managed);
          // The references it names, and those it keeps when it moves, must be of its scope as it will be.
          if (scope) {
            const kept = Object.fromEntries((declaration.references ?? []).map((reference) => [reference.field, data[reference.field] !== undefined ? data[reference.field] : moved ? row[reference.field] : undefined]));
            await assertReferencesIn(tx, scope, kept, true);
          }
          if (within && !joined && parent != null && parent !== row[within.field]) {
            const found = await parentScope(tx, parent, true);
            if (!found || found.scope !== row.scope || found.scopeId !== row.scopeId) {
              throw badInput(within.field, `${within.label} ${parent} does not exist in this ${nounOf(declaration.label)}'s scope.`);
            }
          }
          // The creator as resolved (0 or absent: as it was), in a value of its own: the parsed input stays as given.
          const createdBy = creator && takes("createdBy") ? { createdBy: await resolveCreator(tx, data.createdBy as number | null | undefined, row[creator] as number) } : {};
          if (window) {
            // The end: absent keeps the stored one, null removes it (the window stays open).
            const down = data[window.down] === undefined ? row[window.down] : data[window.down];
            assertPublishingWindow((data[window.up] as Date | undefined) ?? (row[window.up] as Date), down as Date | null);
            values[window.down] = down;
          }
          if (uniqueName) {
            const name = (data[uniqueName.field] as string | undefined) ?? row[uniqueName.field];
            if (name !== row[uniqueName.field] || moved) await assertNameFree(name as string, takenIn(tx, scope!, id), uniqueName.field, uniqueName.label);
            values[uniqueName.field] = name;
          }
          const more = declaration.updates?.(tx, id, data, row, user.id);
          return { with: more?.with, update: updateStatement(tx, policy, id, { ...columnValues(table, { ...data, ...createdBy }, "update"), ...values, ...scope, ...more?.values }) };
        },
      }).catch(writeFailure({ conflict, missing: missing(id) }));
      return changedRecord<R>(ctx, policy, id, query as Selection);
    },
    async removeRecord(ctx, named) {
      writer(ctx);
      const id = await idFrom(ctx, named);
      const removes = declaration.writes.removes;
      // A record that is a scope (a group, a course) takes everything in it along (src/common/scope-content.ts).
      const ownKind = policy.isScope;
      return deleteRecord(ctx, part(writes, "events"), id, part(eventTypes, "events").deleted, {
        authorize: authorize && ((locked) => authorize({ ...locked, id })),
        before:
          managed || removes || ownKind
            ? async (tx, row) => {
                await assertManaged(tx, row as Record<string, unknown>);
                if (ownKind) await removeScopeContents(tx, { scope: ownKind, scopeId: id });
                await removes?.(tx, id, row as Record<string, unknown>);
              }
            : undefined,
      });
    },
  };

  const own = declaration.own;
  if (own?.create) area.createRecord = own.create as Area["createRecord"];
  if (own?.update) area.updateRecord = (async (ctx: RequestContext, named: number | string, input: Record<string, unknown>, query?: Query) => own.update!(ctx, await idFrom(ctx, named), input, query)) as Area["updateRecord"];
  if (own?.remove) area.removeRecord = async (ctx, named) => own.remove!(ctx, await idFrom(ctx, named));

  // A deleted group's (or course's) records go with it, each with its own deleted event (src/common/scope-content.ts).
  if (policy.scoped && writes && eventTypes) {
    const more = declaration.scopeContent;
    registerScopeContent({
      area: declaration.area,
      models: [declaration.model, ...(more?.models ?? [])],
      async remove(tx, scope) {
        const removed = await deleteScopeRecords(tx, writes, scope, eventTypes.deleted);
        await more?.remove(tx, scope);
        return removed;
      },
    });
  }
  if (declaration.activity && eventTypes) {
    const { follows, ...source } = declaration.activity;
    registerActivitySource({ ...source, types: [eventTypes.created], ...(follows ? { follows: "types" in follows ? follows : { types: follows } } : {}) });
  }
  // A record that is a scope (a group, a course): a change of a field its kind secludes by (a group hidden, a
  // course unpublished) decides again who reads the activity entries of everything in it (src/activity/readers.ts).
  const ownKind = policy.isScope;
  if (ownKind && eventTypes) {
    registerActivityRevision({
      types: [eventTypes.updated],
      entries: (event) => {
        const secludedBy = scopeKindIfRegistered(ownKind)?.secludedBy ?? [];
        return event.changed.some((field) => secludedBy.includes(field)) ? Prisma.sql`(a.scope = ${ownKind} AND a.scope_id = ${event.recordId})` : null;
      },
    });
  }
  areas.set(declaration.area, area as AnyArea);
  return area;
}
