import type { StoredEvent } from "../common/outbox.js";
import { Prisma } from "../generated/prisma/client.js";
import { registerActivityRevision, registerActivitySource } from "../common/activity-sources.js";
import { scopeManagersAndSubject } from "../activity/consumer.js";
import { recipientKey } from "../activity/service.js";

const title = (event: StoredEvent) => String(event.payload.title ?? event.payload.cn ?? event.scopeId);

const MEMBERSHIP_CHANGES = ["groups.memberJoined", "groups.requestApproved", "groups.invitationAccepted", "groups.memberPromoted", "groups.memberDemoted", "groups.memberRemoved", "groups.memberLeft"];

/** Membership changes the group sees: to the group, the person concerned and the actor. */
registerActivitySource({
  types: MEMBERSHIP_CHANGES,
  describe: (event) => `Group ${title(event)}: ${event.type.slice("groups.".length)}`,
  recipients: (event) => [
    { scope: "group", scopeId: event.scopeId },
    ...(event.subjectId ? [{ scope: "member", scopeId: event.subjectId }] : []),
    ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : []),
  ],
});

/** Membership requests and invitations: only the group's managers and the person concerned. */
registerActivitySource({
  types: ["groups.joinRequested", "groups.requestCancelled", "groups.requestDenied", "groups.memberInvited", "groups.invitationDeclined", "groups.invitationWithdrawn"],
  describe: (event) => `Group ${title(event)}: ${event.type.slice("groups.".length)}`,
  recipients: scopeManagersAndSubject,
});

/**
 * What a group's membership changes do to the entries of its records (src/activity/readers.ts): a member
 * joining, leaving, or made or no longer a manager (managers read its unpublished posts), those that named the
 * member. (Hiding or showing the group decides all of them again: the kit's, for every record that is a
 * scope, src/common/area.ts.)
 */
registerActivityRevision({
  types: MEMBERSHIP_CHANGES,
  entries: (event) =>
    event.subjectId
      ? Prisma.sql`(a.scope = 'group' AND a.scope_id = ${event.recordId} AND (',' || a.candidates || ',') LIKE ${`%,${recipientKey({ scope: "member", scopeId: event.subjectId })},%`})`
      : null,
});
