import { AsyncLocalStorage } from "node:async_hooks";

/**
 * No Prisma call, nor a statement on the pool, may run inside one of our driver transactions (SqlClient.transaction): on PGlite it
 * waits for the transaction to end, which waits for it — the server hangs; on PostgreSQL it runs on
 * another connection, outside the transaction, and does not see its writes. Such a call is refused at
 * once instead, and the transaction's work learns that it was (`prismaRefusedInside`): a keyed operation
 * (src/execution/conditions.ts) whose selection needs Prisma is told so instead of hanging.
 */
const insideTransaction = new AsyncLocalStorage<{ prismaRefused: boolean }>();

/** Runs a driver transaction's work, marked as inside it for every call it makes, however deep. */
export function withinDriverTransaction<T>(work: () => Promise<T>): Promise<T> {
  return insideTransaction.run({ prismaRefused: false }, work);
}

/** Whether a Prisma call was refused inside the driver transaction this runs in. */
export const prismaRefusedInside = (): boolean => insideTransaction.getStore()?.prismaRefused === true;

/**
 * The error for a read the open driver transaction cannot make (a selection that would load through
 * Prisma), marked as refused like a Prisma call, so a keyed operation answers it as one.
 */
export function refusedInsideTransaction(message: string): Error {
  const inside = insideTransaction.getStore();
  if (inside) inside.prismaRefused = true;
  return new Error(message);
}

/**
 * Throws when a statement is sent to the pool (not the transaction's own client) from inside a driver
 * transaction's work: on PGlite it would wait for the transaction, on PostgreSQL run outside it. Such a
 * read belongs on `sqlOf(ctx)`, the transaction's client.
 */
export function refuseOutsideStatement(): void {
  const inside = insideTransaction.getStore();
  if (!inside) return;
  inside.prismaRefused = true;
  throw new Error("a statement on the pool inside a driver transaction (src/db/transaction-guard.ts): send it through the transaction's client (sqlOf(ctx))");
}

/**
 * The Prisma client, refusing a call made from inside a driver transaction when it is made, in the caller's
 * own async context. Prisma batches the unique reads of one tick (`findUnique`, the relations Pothos loads)
 * and sends the batch in the context of its first call: a guard at the adapter alone would refuse another
 * request's read that joined a batch a keyed operation began, or let the keyed operation's read through
 * in a batch another request began (on PGlite, a hang). Refused here, a call inside never joins a batch.
 */
export function refusingInsideDriverTransactionsClient<C extends { $extends: (extension: never) => unknown }>(client: C): C {
  const refusing = {
    query: {
      $allOperations({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
        const inside = insideTransaction.getStore();
        if (inside) {
          inside.prismaRefused = true;
          return Promise.reject(new Error("a Prisma call inside a driver transaction (src/db/transaction-guard.ts): read with the transaction's client instead"));
        }
        return query(args);
      },
    },
  };
  return client.$extends(refusing as never) as C;
}

/** Prisma's statements, through the adapter: the calls that reach the database (a backstop to the client's guard). */
const STATEMENTS = new Set(["queryRaw", "executeRaw", "executeScript", "startTransaction"]);

/** A driver adapter factory whose adapters refuse statements sent from inside a driver transaction. */
export function refusingInsideDriverTransactions<F extends object>(factory: F): F {
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "connect" || typeof value !== "function") return value;
      return async (...args: unknown[]) => guardedAdapter((await (value as (...a: unknown[]) => Promise<object>).apply(target, args)) as object);
    },
  });
}

function guardedAdapter<A extends object>(adapter: A): A {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (!STATEMENTS.has(property as string)) return (value as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        const inside = insideTransaction.getStore();
        if (inside) {
          inside.prismaRefused = true;
          return Promise.reject(new Error("a Prisma statement inside a driver transaction (src/db/transaction-guard.ts): read with the transaction's client instead"));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
