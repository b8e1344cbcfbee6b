/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** Access levels (REST numbers them: 0 public, 1 registered users, 2 group members.) */
export type AnnouncementAccess =
  /** 2: group members */
  | 'PRIVATE'
  /** 0: public */
  | 'PUBLIC'
  /** 1: registered users */
  | 'REGISTERED';

export type AnnouncementRestFragment = { id: string, title: string, content: string, priority: number, sticky: number, scope: string, state: number, access: AnnouncementAccess, created: string, modified: string, url: string, publish_up: string, publish_down: string | null, scope_id: number, created_by: number };

export const AnnouncementRestFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"AnnouncementRest"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Announcement"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"priority"}},{"kind":"Field","name":{"kind":"Name","value":"sticky"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_up"},"name":{"kind":"Name","value":"publishUp"}},{"kind":"Field","alias":{"kind":"Name","value":"publish_down"},"name":{"kind":"Name","value":"publishDown"}},{"kind":"Field","name":{"kind":"Name","value":"scope"}},{"kind":"Field","alias":{"kind":"Name","value":"scope_id"},"name":{"kind":"Name","value":"scopeId"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"access"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","alias":{"kind":"Name","value":"created_by"},"name":{"kind":"Name","value":"createdById"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"url"}}]}}]} as unknown as DocumentNode<AnnouncementRestFragment, unknown>;