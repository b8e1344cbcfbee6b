/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type CreateWikiPageInput = {
  /** Default PUBLIC (0). */
  access?: WikiAccess | null | undefined;
  created?: string | null | undefined;
  /** 0 or absent: the caller. Another user: administrators only. */
  createdBy?: number | null | undefined;
  /** Derived from the title when absent. */
  pagename?: string | null | undefined;
  pagetext: string;
  /** Page options (an object). */
  params?: unknown;
  /** Default "site". */
  scope?: string | null | undefined;
  /** Default 0. */
  scopeId?: number | null | undefined;
  /** 0 unpublished, 1 published. Default 0. */
  state?: number | null | undefined;
  /** Summary of the first revision. */
  summary?: string | null | undefined;
  title: string;
};

/** Only the given fields change. New `pagetext` adds a revision with `summary`. */
export type UpdateWikiPageInput = {
  /** Default PUBLIC (0). */
  access?: WikiAccess | null | undefined;
  created?: string | null | undefined;
  /** 0 or absent: the caller. Another user: administrators only. */
  createdBy?: number | null | undefined;
  /** Derived from the title when absent. */
  pagename?: string | null | undefined;
  pagetext?: string | null | undefined;
  /** Page options (an object). */
  params?: unknown;
  /** Default "site". */
  scope?: string | null | undefined;
  /** Default 0. */
  scopeId?: number | null | undefined;
  /** 0 unpublished, 1 published. Default 0. */
  state?: number | null | undefined;
  /** Summary of the changes made. */
  summary?: string | null | undefined;
  title?: string | null | undefined;
};

/** Access levels (REST numbers them: 0 public, 1 registered users, 4 private.) */
export type WikiAccess =
  /** 4: private */
  | 'PRIVATE'
  /** 0: public */
  | 'PUBLIC'
  /** 1: registered users */
  | 'REGISTERED';

export type WikiRevisionRestFragment = { id: string, version: number, pagetext: string, summary: string, approved: boolean, length: number, created: string, created_by: number };

export type WikiPageRestFragment = { id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number };

export type WikiCreateMutationVariables = Exact<{
  input: CreateWikiPageInput;
}>;


export type WikiCreateMutation = { createWikiPage: { pagetext: string, id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number, version: { id: string, version: number, pagetext: string, summary: string, approved: boolean, length: number, created: string, created_by: number } | null } };

export type WikiListQueryVariables = Exact<{
  search?: string | null | undefined;
  scope?: string | null | undefined;
  scopeId?: number | null | undefined;
  sort?: string | null | undefined;
  sortDir?: string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type WikiListQuery = { wikiPages: { total: number, items: Array<{ id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number }> } };

export type WikiReadQueryVariables = Exact<{
  id: string;
  versionId?: string | null | undefined;
}>;


export type WikiReadQuery = { wikiPage: { pagetext: string, id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number, version: { id: string, version: number, pagetext: string, summary: string, approved: boolean, length: number, created: string, created_by: number } | null } };

export type WikiUpdateMutationVariables = Exact<{
  id: string;
  input: UpdateWikiPageInput;
}>;


export type WikiUpdateMutation = { updateWikiPage: { pagetext: string, id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number, version: { id: string, version: number, pagetext: string, summary: string, approved: boolean, length: number, created: string, created_by: number } | null } | null };

export type WikiDeleteMutationVariables = Exact<{
  id: string;
}>;


export type WikiDeleteMutation = { deleteWikiPage: string };

export const WikiRevisionRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiRevisionRestFragment, unknown>;
export const WikiPageRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}}]} as unknown as DocumentNode<WikiPageRestFragment, unknown>;
export const WikiCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"version"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiCreateMutation, WikiCreateMutationVariables>;
export const WikiListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"WikiList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPages"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}}]} as unknown as DocumentNode<WikiListQuery, WikiListQueryVariables>;
export const WikiReadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"WikiRead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}]},{"kind":"Field","name":{"kind":"Name","value":"version"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiReadQuery, WikiReadQueryVariables>;
export const WikiUpdateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiUpdate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"version"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiUpdateMutation, WikiUpdateMutationVariables>;
export const WikiDeleteDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiDelete"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<WikiDeleteMutation, WikiDeleteMutationVariables>;