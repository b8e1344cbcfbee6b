// The records declarations against the counter triggers of a migrated PGlite database, for db:check and
// db:migration (src/common/count-triggers.ts, countTriggerDifferences). Importing the areas makes their
// declarations; a Prisma client over the same database gives their tables and columns.
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import "../src/areas.js";
import { countTriggerDifferences as differencesIn } from "../src/common/count-triggers.js";
import { declaredRecords } from "../src/common/records.js";
import { PrismaClient } from "../src/generated/prisma/client.js";

export async function countTriggerDifferences(pglite: PGlite): Promise<{ differences: string[]; statements: string[]; checked: number }> {
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) as never });
  const found = await differencesIn(async (sql) => (await pglite.query<Record<string, unknown>>(sql)).rows, prisma);
  return { ...found, checked: declaredRecords().filter((declaration) => declaration.counted !== false).length };
}
