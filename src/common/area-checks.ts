import type { FieldTable } from "./fields.js";
import type { AreaDeclaration } from "./area-declaration.js";

/** Options the kit cannot serve together (defineArea asks first): refused when the area is defined. */
export function checkOptions<T extends FieldTable, E extends string>(declaration: AreaDeclaration<T, E>): void {
  // Options the kit cannot serve together: refused here rather than at the first write.
  const scopedOnly = [declaration.uniqueName && "uniqueName", declaration.writes.by === "managers" && 'writes.by "managers"', declaration.writes.staysInScope && "writes.staysInScope"].filter(Boolean);
  if (!declaration.policy.scoped && scopedOnly.length) throw new Error(`area ${declaration.area}: ${scopedOnly.join(", ")} need scoped records`);
  if (declaration.policy.administratorsOnly && declaration.writes.by !== "administrators") {
    throw new Error(`area ${declaration.area}: records only administrators read are written by administrators only (writes.by)`);
  }
  if (declaration.writes.conflict && declaration.uniqueName) throw new Error(`area ${declaration.area}: writes.conflict and uniqueName name two conflicts; the kit answers one`);
  if (declaration.inserts?.taken && !declaration.writes.conflict) throw new Error(`area ${declaration.area}: inserts.taken answers writes.conflict's parameter: declare it`);
  for (const [name, filter] of Object.entries(declaration.list?.filters ?? {})) {
    if ((filter.type === "Boolean") !== (filter.equals !== undefined)) throw new Error(`area ${declaration.area}: list filter ${name}: a Boolean filter, and only one, says what it \`equals\``);
  }
  if (declaration.within && (!declaration.policy.scoped || "scope" in declaration.fields || "scopeId" in declaration.fields)) {
    throw new Error(`area ${declaration.area}: a record within a parent takes its parent's scope: scoped records, and no scope or scopeId field`);
  }
  if (declaration.writes.alongside && (declaration.uniqueName || declaration.inserts)) throw new Error(`area ${declaration.area}: writes.alongside is for a plain insert (no uniqueName, no inserts)`);
  if (declaration.references?.length && !declaration.policy.scoped) throw new Error(`area ${declaration.area}: references are checked against the record's scope: scoped records only`);
  // A record in no parent is the site's: written by administrators only, which `managers` says of the site scope.
  if (declaration.within?.optional && declaration.writes.by !== "managers") throw new Error(`area ${declaration.area}: an optional parent (within.optional) needs writes.by "managers"`);
}

/** The parts the declaration must give for the others it gives (defineArea asks once the policy is made). */
export function checkParts<T extends FieldTable, E extends string>(declaration: AreaDeclaration<T, E>): void {
  const events = declaration.events;
  // Parts its REST rows or GraphQL fields would ask for and the declaration does not give: refused here, not at
  // the first request. Records that raise no events are made by the area's own create and never changed by the
  // kit (each change is an event).
  const missingParts = [
    !events &&
      (!declaration.own?.create || declaration.rest?.replace || declaration.rest?.remove || declaration.activity) &&
      "an area without events makes its records with own.create, and has no update, delete or activity",
    events && !declaration.writes.remove && "describe its delete mutation (writes.remove)",
    declaration.rest?.list && !declaration.list && "rest.list without a list",
    declaration.rest?.read && !declaration.read && "rest.read without a read",
    !events && (declaration.own?.update || declaration.own?.remove) && "own.update or own.remove without events (no update or delete is made for them)",
    declaration.writes.openedBy && !declaration.own?.create && "writes.openedBy without own.create (the area's own create decides who may, as the configuration says)",
  ].filter(Boolean);
  if (missingParts.length) throw new Error(`area ${declaration.area}: ${missingParts.join("; ")}`);
}
