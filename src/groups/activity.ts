import type { StoredEvent } from "../common/outbox.js";
import { registerActivitySource } from "../activity/sources.js";
import { groupManagersAndSubject } from "../activity/consumer.js";

const title = (event: StoredEvent) => String(event.payload.title ?? event.payload.cn ?? event.scopeId);

/** Membership changes the group sees: to the group, the person concerned and the actor. */
registerActivitySource({
  types: ["groups.memberJoined", "groups.requestApproved", "groups.invitationAccepted", "groups.memberPromoted", "groups.memberDemoted", "groups.memberRemoved", "groups.memberLeft"],
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
  recipients: groupManagersAndSubject,
});
