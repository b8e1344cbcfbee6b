import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";

/**
 * Bounds on what one GraphQL document sent to /graphql may ask for, checked before it runs. The
 * facade's own documents are fixed and never pass through here. Introspection (GraphiQL) is exempt.
 */
export const QUERY_LIMITS = {
  /** Nesting depth: page → revisions → author → … ; 10 leaves room for every real screen. */
  maxDepth: 10,
  /** Aliases per document, so one request cannot run a field hundreds of times. */
  maxAliases: 15,
  /** graphql-armor's cost model (objects 2, scalars 1, ×1.5 per level). */
  maxCost: 5000,
  /** Tokens per document, so parsing stays cheap. */
  maxTokens: 2000,
} as const;

export const queryLimitPlugins = () => [
  maxDepthPlugin({ n: QUERY_LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true }),
  maxAliasesPlugin({ n: QUERY_LIMITS.maxAliases }),
  costLimitPlugin({ maxCost: QUERY_LIMITS.maxCost, ignoreIntrospection: true }),
  maxTokensPlugin({ n: QUERY_LIMITS.maxTokens }),
];
