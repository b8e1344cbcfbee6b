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
  /** Default NOT_SET (public). */
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
  /** site, group, member, … */
  scope: string;
  /** The scope's record id (0 for site). */
  scopeId: number;
  /** 0 unpublished (default), 1 published. */
  state?: number | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title: string;
};

export type CreateUserInput = {
  /** Administrators only. */
  admin?: boolean | null | undefined;
  email: string;
  name: string;
  password: string;
  username: string;
};

export type CreateWikiPageInput = {
  /** Default PUBLIC. */
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
  /** 0 unpublished (default), 1 published. */
  state?: number | null | undefined;
  /** Summary of the first revision. */
  summary?: string | null | undefined;
  title: string;
};

/** Only the given fields change. */
export type UpdateBlogEntryInput = {
  /** Default NOT_SET (public). */
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
  /** 0 unpublished (default), 1 published. */
  state?: number | null | undefined;
  /** Trimmed; empty and repeated (case-insensitive) tags are dropped. */
  tags?: Array<string> | null | undefined;
  title?: string | null | undefined;
};

/** Only the given fields change. New `pagetext` adds a revision with `summary`. */
export type UpdateWikiPageInput = {
  /** Default PUBLIC. */
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
  /** 0 unpublished (default), 1 published. */
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


export type BlogUpdateMutation = { updateBlogEntry: { id: string, title: string, alias: string, content: string, scope: string, created: string, modified: string, state: number, access: BlogAccess, hits: number, url: string, scope_id: number, created_by: number, allow_comments: number, publish_up: string, publish_down: string | null, tags: string } };

export type BlogDeleteMutationVariables = Exact<{
  id: string;
}>;


export type BlogDeleteMutation = { deleteBlogEntry: string };

export type MemberRestFragment = { id: string, username: string, name: string, email: string | null, admin: boolean | null, created: string };

export type MemberCreateMutationVariables = Exact<{
  input: CreateUserInput;
}>;


export type MemberCreateMutation = { createUser: { id: string, username: string, name: string, email: string | null, admin: boolean | null, created: string } };

export type MemberMeQueryVariables = Exact<{ [key: string]: never; }>;


export type MemberMeQuery = { me: { id: string, username: string, name: string, email: string | null, admin: boolean | null, created: string } };

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


export type WikiUpdateMutation = { updateWikiPage: { pagetext: string, id: string, title: string, pagename: string, created: string, modified: string, state: number, access: WikiAccess, scope: string, params: unknown, url: string, created_by: number, scope_id: number, revisions: number, version: { id: string, version: number, pagetext: string, summary: string, approved: boolean, length: number, created: string, created_by: number } | null } };

export type WikiDeleteMutationVariables = Exact<{
  id: string;
}>;


export type WikiDeleteMutation = { deleteWikiPage: string };

export type TestMeQueryVariables = Exact<{ [key: string]: never; }>;


export type TestMeQuery = { me: { id: string, username: string, name: string, email: string | null, admin: boolean | null } };

export type TestRegisterClientMutationVariables = Exact<{
  name: string;
}>;


export type TestRegisterClientMutation = { registerOAuthClient: { clientId: string, clientSecret: string, name: string, grants: Array<string> } };

export type TestCreateUserMutationVariables = Exact<{
  input: CreateUserInput;
}>;


export type TestCreateUserMutation = { createUser: { id: string, username: string, admin: boolean | null } };

export type TestBlogEntriesQueryVariables = Exact<{
  search?: string | null | undefined;
  scope?: string | null | undefined;
  scopeId?: number | null | undefined;
  sort?: string | null | undefined;
  sortDir?: string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type TestBlogEntriesQuery = { blogEntries: { total: number, items: Array<{ id: string, title: string, alias: string, state: number, access: BlogAccess, createdBy: { id: string, username: string } }> } };

export type TestBlogEntryQueryVariables = Exact<{
  id: string;
}>;


export type TestBlogEntryQuery = { blogEntry: { id: string, title: string, alias: string, content: string, scope: string, scopeId: number, state: number, access: BlogAccess, allowComments: number, publishUp: string, publishDown: string | null, hits: number, tags: Array<string>, url: string, createdById: number } };

export type TestCreateBlogEntryMutationVariables = Exact<{
  input: CreateBlogEntryInput;
}>;


export type TestCreateBlogEntryMutation = { createBlogEntry: { id: string, title: string, alias: string, state: number, access: BlogAccess, tags: Array<string> } };

export type TestUpdateBlogEntryMutationVariables = Exact<{
  id: string;
  input: UpdateBlogEntryInput;
}>;


export type TestUpdateBlogEntryMutation = { updateBlogEntry: { id: string, title: string, alias: string, content: string, state: number, hits: number, publishUp: string, created: string } };

export type TestDeleteBlogEntryMutationVariables = Exact<{
  id: string;
}>;


export type TestDeleteBlogEntryMutation = { deleteBlogEntry: string };

export type TestWikiPagesQueryVariables = Exact<{
  search?: string | null | undefined;
  scope?: string | null | undefined;
  scopeId?: number | null | undefined;
  sort?: string | null | undefined;
  sortDir?: string | null | undefined;
  limit?: number | null | undefined;
  start?: number | null | undefined;
}>;


export type TestWikiPagesQuery = { wikiPages: { total: number, items: Array<{ id: string, title: string, pagename: string, pagetext: string, state: number, access: WikiAccess, revisionCount: number, createdBy: { id: string, name: string } }> } };

export type TestWikiPageQueryVariables = Exact<{
  id: string;
  versionId?: string | null | undefined;
}>;


export type TestWikiPageQuery = { wikiPage: { id: string, title: string, pagename: string, pagetext: string, state: number, access: WikiAccess, scope: string, scopeId: number, revisionCount: number, revisions: Array<{ id: string, version: number, summary: string }>, version: { id: string, version: number, pagetext: string } | null } };

export type TestCreateWikiPageMutationVariables = Exact<{
  input: CreateWikiPageInput;
}>;


export type TestCreateWikiPageMutation = { createWikiPage: { id: string, title: string, pagename: string, state: number, access: WikiAccess } };

export type TestUpdateWikiPageMutationVariables = Exact<{
  id: string;
  input: UpdateWikiPageInput;
}>;


export type TestUpdateWikiPageMutation = { updateWikiPage: { id: string, title: string, state: number, revisionCount: number } };

export type TestDeleteWikiPageMutationVariables = Exact<{
  id: string;
}>;


export type TestDeleteWikiPageMutation = { deleteWikiPage: string };

export const BlogEntryRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogEntryRestFragment, unknown>;
export const MemberRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MemberRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"created"}}]}}]} as unknown as DocumentNode<MemberRestFragment, unknown>;
export const WikiRevisionRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiRevisionRestFragment, unknown>;
export const WikiPageRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}}]} as unknown as DocumentNode<WikiPageRestFragment, unknown>;
export const BlogCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogCreateMutation, BlogCreateMutationVariables>;
export const BlogListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BlogList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogListQuery, BlogListQueryVariables>;
export const BlogReadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BlogRead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogReadQuery, BlogReadQueryVariables>;
export const BlogUpdateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogUpdate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BlogEntryRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BlogEntryRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BlogEntry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","alias":{"kind":"Name","value":"allow_comments"},"name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","alias":{"kind":"Name","value":"tags"},"name":{"kind":"Name","value":"tagsText"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<BlogUpdateMutation, BlogUpdateMutationVariables>;
export const BlogDeleteDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"BlogDelete"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<BlogDeleteMutation, BlogDeleteMutationVariables>;
export const MemberCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"MemberCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"MemberRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MemberRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"created"}}]}}]} as unknown as DocumentNode<MemberCreateMutation, MemberCreateMutationVariables>;
export const MemberMeDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"MemberMe"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"me"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"MemberRest"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"MemberRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"created"}}]}}]} as unknown as DocumentNode<MemberMeQuery, MemberMeQueryVariables>;
export const WikiCreateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiCreate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"version"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiCreateMutation, WikiCreateMutationVariables>;
export const WikiListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"WikiList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPages"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}}]} as unknown as DocumentNode<WikiListQuery, WikiListQueryVariables>;
export const WikiReadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"WikiRead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}]},{"kind":"Field","name":{"kind":"Name","value":"version"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiReadQuery, WikiReadQueryVariables>;
export const WikiUpdateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiUpdate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiPageRest"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"version"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"WikiRevisionRest"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiPageRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiPage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","alias":{"kind":"Name","value":"revisions"},"name":{"kind":"Name","value":"revisionCount"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"WikiRevisionRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"WikiRevision"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"approved"}},{"kind":"Field","name":{"kind":"Name","value":"length"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}}]}}]} as unknown as DocumentNode<WikiUpdateMutation, WikiUpdateMutationVariables>;
export const WikiDeleteDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"WikiDelete"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<WikiDeleteMutation, WikiDeleteMutationVariables>;
export const TestMeDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestMe"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"me"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}}]}}]}}]} as unknown as DocumentNode<TestMeQuery, TestMeQueryVariables>;
export const TestRegisterClientDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestRegisterClient"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"name"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"registerOAuthClient"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"Variable","name":{"kind":"Name","value":"name"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientId"}},{"kind":"Field","name":{"kind":"Name","value":"clientSecret"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"grants"}}]}}]}}]} as unknown as DocumentNode<TestRegisterClientMutation, TestRegisterClientMutationVariables>;
export const TestCreateUserDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestCreateUser"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateUserInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}}]}}]}}]} as unknown as DocumentNode<TestCreateUserMutation, TestCreateUserMutationVariables>;
export const TestBlogEntriesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestBlogEntries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}}]} as unknown as DocumentNode<TestBlogEntriesQuery, TestBlogEntriesQueryVariables>;
export const TestBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","name":{"kind":"Name","value":"createdById"}}]}}]}}]} as unknown as DocumentNode<TestBlogEntryQuery, TestBlogEntryQueryVariables>;
export const TestCreateBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestCreateBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}}]}}]}}]} as unknown as DocumentNode<TestCreateBlogEntryMutation, TestCreateBlogEntryMutationVariables>;
export const TestUpdateBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestUpdateBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","name":{"kind":"Name","value":"created"}}]}}]}}]} as unknown as DocumentNode<TestUpdateBlogEntryMutation, TestUpdateBlogEntryMutationVariables>;
export const TestDeleteBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestDeleteBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<TestDeleteBlogEntryMutation, TestDeleteBlogEntryMutationVariables>;
export const TestWikiPagesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestWikiPages"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPages"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"revisionCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}}]} as unknown as DocumentNode<TestWikiPagesQuery, TestWikiPagesQueryVariables>;
export const TestWikiPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestWikiPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"wikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}]},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"revisionCount"}},{"kind":"Field","name":{"kind":"Name","value":"revisions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}}]}},{"kind":"Field","name":{"kind":"Name","value":"version"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"versionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"versionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"pagetext"}}]}}]}}]}}]} as unknown as DocumentNode<TestWikiPageQuery, TestWikiPageQueryVariables>;
export const TestCreateWikiPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestCreateWikiPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"pagename"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}}]}}]}}]} as unknown as DocumentNode<TestCreateWikiPageMutation, TestCreateWikiPageMutationVariables>;
export const TestUpdateWikiPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestUpdateWikiPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateWikiPageInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"revisionCount"}}]}}]}}]} as unknown as DocumentNode<TestUpdateWikiPageMutation, TestUpdateWikiPageMutationVariables>;
export const TestDeleteWikiPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestDeleteWikiPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteWikiPage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<TestDeleteWikiPageMutation, TestDeleteWikiPageMutationVariables>;