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
  /** Scope kind: site, member, group, project or course. */
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


export type TestUpdateBlogEntryMutation = { updateBlogEntry: { id: string, title: string, alias: string, content: string, state: number, hits: number, publishUp: string, created: string } | null };

export type TestDeleteBlogEntryMutationVariables = Exact<{
  id: string;
}>;


export type TestDeleteBlogEntryMutation = { deleteBlogEntry: string };


export const TestBlogEntriesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestBlogEntries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"scopeId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scopeId"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"sortDir"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sortDir"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"username"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"total"}}]}}]}}]} as unknown as DocumentNode<TestBlogEntriesQuery, TestBlogEntriesQueryVariables>;
export const TestBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TestBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"blogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"allowComments"}},{"kind":"Field","name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","name":{"kind":"Name","value":"createdById"}}]}}]}}]} as unknown as DocumentNode<TestBlogEntryQuery, TestBlogEntryQueryVariables>;
export const TestCreateBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestCreateBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}}]}}]}}]} as unknown as DocumentNode<TestCreateBlogEntryMutation, TestCreateBlogEntryMutationVariables>;
export const TestUpdateBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestUpdateBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateBlogEntryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"alias"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"hits"}},{"kind":"Field","name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","name":{"kind":"Name","value":"created"}}]}}]}}]} as unknown as DocumentNode<TestUpdateBlogEntryMutation, TestUpdateBlogEntryMutationVariables>;
export const TestDeleteBlogEntryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TestDeleteBlogEntry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteBlogEntry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<TestDeleteBlogEntryMutation, TestDeleteBlogEntryMutationVariables>;