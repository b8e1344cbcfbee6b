/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** Access levels (REST numbers them: 0 not set (public), 1 public, 2 registered users, 5 private.) */
export type BlogAccess =
  /** 0: not set (public) */
  | 'NOT_SET'
  /** 5: private */
  | 'PRIVATE'
  /** 1: public */
  | 'PUBLIC'
  /** 2: registered users */
  | 'REGISTERED';

export type CreateBlogEntryInput = {
  /** Default NOT_SET (0). */
  access?: BlogAccess | null | undefined;
  /** Derived from the title when absent. */
  alias?: string | null | undefined;
  /** 1 comments allowed (default), 0 not. */
  allowComments?: number | null | undefined;
  content: string;
  created?: string | null | undefined;
  /** 0 or absent: the caller. Another user: administrators only. */
  createdBy?: number | null | undefined;
  /** End of the publishing window; must be after publishUp. */
  publishDown?: string | null | undefined;
  /** Start of the publishing window; default now. */
  publishUp?: string | null | undefined;
  /** Scope kind: site, member, group or project. */
  scope: string;
  /** The scope's record id (0 for site). */
  scopeId: number;
  /** 0 unpublished, 1 published. Default 0. */
  state?: number | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title: string;
};

/** Only the given fields change. */
export type UpdateBlogEntryInput = {
  /** Default NOT_SET (0). */
  access?: BlogAccess | null | undefined;
  /** Derived from the title when absent. */
  alias?: string | null | undefined;
  /** 1 comments allowed (default), 0 not. */
  allowComments?: number | null | undefined;
  content?: string | null | undefined;
  created?: string | null | undefined;
  /** 0 or absent: the caller. Another user: administrators only. */
  createdBy?: number | null | undefined;
  /** Number of views, kept by clients. */
  hits?: number | null | undefined;
  /** End of the publishing window; must be after publishUp. */
  publishDown?: string | null | undefined;
  /** Start of the publishing window; default now. */
  publishUp?: string | null | undefined;
  scope?: string | null | undefined;
  scopeId?: number | null | undefined;
  /** 0 unpublished, 1 published. Default 0. */
  state?: number | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title?: string | null | undefined;
};

export type BlogEntryRestFragment = { id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string };

export type BlogCreateMutationVariables = Exact<{
  input: CreateBlogEntryInput;
}>;


export type BlogCreateMutation = { createBlogEntry: { id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string } };

export type BlogListQueryVariables = Exact<{
  search?: string | null | undefined;
  scope?: string | null | undefined;
  scopeId?: number | null | undefined;
  sort?: string | null | undefined;
  sortDir?: string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type BlogListQuery = { blogEntries: { total: number, items: Array<{ id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string }> } };

export type BlogReadQueryVariables = Exact<{
  id: string;
}>;


export type BlogReadQuery = { blogEntry: { id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string } };

export type BlogUpdateMutationVariables = Exact<{
  id: string;
  input: UpdateBlogEntryInput;
}>;


export type BlogUpdateMutation = { updateBlogEntry: { id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string } | null };

export type BlogDeleteMutationVariables = Exact<{
  id: string;
}>;


export type BlogDeleteMutation = { deleteBlogEntry: string };

export const BlogEntryRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogEntryRestFragment, unknown>;
export const BlogCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogCreateMutation, BlogCreateMutationVariables>;
export const BlogListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BlogList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogListQuery, BlogListQueryVariables>;
export const BlogReadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BlogRead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogReadQuery, BlogReadQueryVariables>;
export const BlogUpdateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogUpdate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogUpdateMutation, BlogUpdateMutationVariables>;
export const BlogDeleteDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogDelete"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<BlogDeleteMutation, BlogDeleteMutationVariables>;