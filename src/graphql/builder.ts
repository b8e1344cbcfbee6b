import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { DateTimeResolver, JSONResolver } from "graphql-scalars";
import type PrismaTypes from "../generated/prisma/pothos-types.js";
import { prismaDatamodel } from "../common/datamodel.js";
import type { RequestContext } from "../common/context.js";
import { forbidden, unauthenticated } from "../common/errors.js";

/**
 * The builder only configures plugins and the context. Every root field declares `authScopes`
 * (`public`, `user` or `admin`) so nothing is open by accident; record-level rules live in the services.
 */
interface BuilderTypes {
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { public: boolean; user: boolean; admin: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}

/** The builder's resolved types, for helpers that take Pothos field builders. */
export type Types = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;

export const builder = new SchemaBuilder<BuilderTypes>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: prismaDatamodel(),
    onUnusedQuery: null,
  },
  scopeAuth: {
    authScopes: (ctx) => ({
      public: true,
      user: ctx.viewer.user !== null,
      admin: ctx.viewer.user?.isAdmin === true,
    }),
    unauthorizedError: (_parent, ctx) =>
      ctx.viewer.user ? forbidden("You are not allowed to do this.") : unauthenticated(),
  },
});

builder.addScalarType("DateTime", DateTimeResolver);
builder.addScalarType("JSON", JSONResolver);
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
