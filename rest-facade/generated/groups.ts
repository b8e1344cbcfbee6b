/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type CreateGroupInput = {
  /** The group's alias in its URL: lowercase letters and digits, starting with a letter (at most 100); unique; never changes. */
  cn: string;
  /** Whether the group is listed and found: 0 visible, 1 hidden. Hidden groups are shown to their members (and invitees) only. */
  discoverability: GroupDiscoverability;
  /** How people become members: 0 open, 1 restricted, 2 invite_only, 3 closed. */
  joinPolicy: GroupJoinPolicy;
  /** Shown to the group's members and administrators only. */
  privateDescription?: string | null | undefined;
  /** Shown to everyone who may see the group. */
  publicDescription?: string | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title: string;
};

/** Stored as numbers (REST shows the names and takes names or numbers: 0 visible, 1 hidden.) */
export type GroupDiscoverability =
  /** 1: hidden */
  | 'HIDDEN'
  /** 0: visible */
  | 'VISIBLE';

/** Stored as numbers (REST shows the names and takes names or numbers: 0 open, 1 restricted, 2 invite_only, 3 closed.) */
export type GroupJoinPolicy =
  /** 3: closed */
  | 'CLOSED'
  /** 2: invite_only */
  | 'INVITE_ONLY'
  /** 0: open */
  | 'OPEN'
  /** 1: restricted */
  | 'RESTRICTED';

/** Only the given fields change; the cn never does. */
export type UpdateGroupInput = {
  /** Whether the group is listed and found: 0 visible, 1 hidden. Hidden groups are shown to their members (and invitees) only. */
  discoverability?: GroupDiscoverability | null | undefined;
  /** How people become members: 0 open, 1 restricted, 2 invite_only, 3 closed. */
  joinPolicy?: GroupJoinPolicy | null | undefined;
  /** Shown to the group's members and administrators only. */
  privateDescription?: string | null | undefined;
  /** Shown to everyone who may see the group. */
  publicDescription?: string | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title?: string | null | undefined;
};

export type GroupRestFragment = { gidNumber: number, cn: string, title: string, description: string, discoverability: GroupDiscoverability, created: string, modified: string, url: string, tags: string, public_description: string, private_description: string | null, join_policy: GroupJoinPolicy, created_by: number | null };

export type GroupCreateMutationVariables = Exact<{
  input: CreateGroupInput;
}>;


export type GroupCreateMutation = { createGroup: { gidNumber: number, cn: string, title: string, description: string, discoverability: GroupDiscoverability, created: string, modified: string, url: string, tags: string, public_description: string, private_description: string | null, join_policy: GroupJoinPolicy, created_by: number | null } };

export type GroupListQueryVariables = Exact<{
  search?: string | null | undefined;
  sort?: string | null | undefined;
  sortDir?: string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type GroupListQuery = { groups: { total: number, items: Array<{ gidNumber: number, cn: string, title: string, description: string, discoverability: GroupDiscoverability, created: string, modified: string, url: string, tags: string, public_description: string, private_description: string | null, join_policy: GroupJoinPolicy, created_by: number | null }> } };

export type GroupReadQueryVariables = Exact<{
  id: string;
}>;


export type GroupReadQuery = { group: { gidNumber: number, cn: string, title: string, description: string, discoverability: GroupDiscoverability, created: string, modified: string, url: string, tags: string, public_description: string, private_description: string | null, join_policy: GroupJoinPolicy, created_by: number | null } };

export type GroupUpdateMutationVariables = Exact<{
  id: string;
  input: UpdateGroupInput;
}>;


export type GroupUpdateMutation = { updateGroup: { gidNumber: number, cn: string, title: string, description: string, discoverability: GroupDiscoverability, created: string, modified: string, url: string, tags: string, public_description: string, private_description: string | null, join_policy: GroupJoinPolicy, created_by: number | null } | null };

export type GroupDeleteMutationVariables = Exact<{
  id: string;
}>;


export type GroupDeleteMutation = { deleteGroup: string };

export type GroupMemberRestFragment = { username: string, name: string, uidNumber: string };

export type GroupMembersListQueryVariables = Exact<{
  id: string;
  list?: Array<string> | string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type GroupMembersListQuery = { groupMembers: { members: Array<{ username: string, name: string, uidNumber: string }>, managers: Array<{ username: string, name: string, uidNumber: string }>, invitees: Array<{ username: string, name: string, uidNumber: string }>, applicants: Array<{ username: string, name: string, uidNumber: string }> } };

export const GroupRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Group"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gidNumber"}},{"kind":"Field","name":{"kind":"Name","value":"cn"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","alias":{"kind":"Name","value":"public_description"},"name":{"kind":"Name","value":"publicDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"private_description"},"name":{"kind":"Name","value":"privateDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"join_policy"},"name":{"kind":"Name","value":"joinPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discoverability"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<GroupRestFragment, unknown>;
export const GroupMemberRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupMemberRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GroupMemberEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"uidNumber"},"name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]} as unknown as DocumentNode<GroupMemberRestFragment, unknown>;
export const GroupCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"GroupCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateGroupInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createGroup"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Group"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gidNumber"}},{"kind":"Field","name":{"kind":"Name","value":"cn"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","alias":{"kind":"Name","value":"public_description"},"name":{"kind":"Name","value":"publicDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"private_description"},"name":{"kind":"Name","value":"privateDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"join_policy"},"name":{"kind":"Name","value":"joinPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discoverability"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<GroupCreateMutation, GroupCreateMutationVariables>;
export const GroupListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GroupList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"groups"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Group"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gidNumber"}},{"kind":"Field","name":{"kind":"Name","value":"cn"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","alias":{"kind":"Name","value":"public_description"},"name":{"kind":"Name","value":"publicDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"private_description"},"name":{"kind":"Name","value":"privateDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"join_policy"},"name":{"kind":"Name","value":"joinPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discoverability"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<GroupListQuery, GroupListQueryVariables>;
export const GroupReadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GroupRead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"group"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Group"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gidNumber"}},{"kind":"Field","name":{"kind":"Name","value":"cn"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","alias":{"kind":"Name","value":"public_description"},"name":{"kind":"Name","value":"publicDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"private_description"},"name":{"kind":"Name","value":"privateDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"join_policy"},"name":{"kind":"Name","value":"joinPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discoverability"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<GroupReadQuery, GroupReadQueryVariables>;
export const GroupUpdateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"GroupUpdate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateGroupInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateGroup"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Group"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gidNumber"}},{"kind":"Field","name":{"kind":"Name","value":"cn"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","alias":{"kind":"Name","value":"public_description"},"name":{"kind":"Name","value":"publicDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"private_description"},"name":{"kind":"Name","value":"privateDescription"}},{"kind":"Field","alias":{"kind":"Name","value":"join_policy"},"name":{"kind":"Name","value":"joinPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discoverability"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<GroupUpdateMutation, GroupUpdateMutationVariables>;
export const GroupDeleteDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"GroupDelete"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteGroup"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<GroupDeleteMutation, GroupDeleteMutationVariables>;
export const GroupMembersListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GroupMembersList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"list"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"groupMembers"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"list"},"value":{"kind":"Variable","name":{"kind":"Name","value":"list"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"members"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupMemberRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"managers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupMemberRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"invitees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupMemberRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"applicants"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"GroupMemberRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"GroupMemberRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GroupMemberEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"uidNumber"},"name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]} as unknown as DocumentNode<GroupMembersListQuery, GroupMembersListQueryVariables>;