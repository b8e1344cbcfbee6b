import { protocol, types, type PGlite } from "@electric-sql/pglite";

/**
 * SqlClient statements on PGlite, prepared once per database and then run by name, as the pool does on
 * PostgreSQL (`preparedNames` in database.ts). PGlite's own `query` parses and analyses the text on every
 * call and crosses into the database six times (parse, describe, bind, describe, execute, sync); here a
 * known statement crosses once (bind, execute, sync) and is only planned, for its own parameters
 * (`plan_cache_mode`, set when the database opens, as on PostgreSQL). Measured on the test suite's
 * statements: parsing was about a third of PGlite's time per statement.
 *
 * It keeps PGlite's own rules: a statement outside a transaction waits for any open one to end, and
 * values are written by the type PostgreSQL inferred for each parameter, rows read by their columns'
 * types, with the caller's parsers first.
 */
export interface PreparedRunner {
  /** Runs `text` with `values` as the prepared statement `name` (undefined: unprepared); `inTransaction`: inside the caller's `pglite.transaction`, whose lock is held. */
  run<Row>(text: string, values: readonly unknown[], options: { name: string | undefined; inTransaction: boolean }): Promise<Row[]>;
}

interface Prepared {
  parameterTypes: number[];
  /** Column names and type ids; empty for a statement that returns no rows. */
  columns: { name: string; dataTypeID: number }[];
}

/** PGlite's locks, which its `query` and `transaction` take (not in its published types). */
interface PGliteLocks {
  _runExclusiveQuery<T>(work: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(work: () => Promise<T>): Promise<T>;
  /** Throws once the database is closing or closed, as PGlite's own query does first. */
  _checkReady(): Promise<void>;
}

const concat = (parts: Uint8Array[]) => {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
};

/** `parsers`: read columns of these types so, before PGlite's own parsers (merged once, not per statement). */
export function preparedRunner(pglite: PGlite, parsers: Record<number, (text: string) => unknown>): PreparedRunner {
  const locks = pglite as unknown as PGliteLocks;
  const readers = { ...pglite.parsers, ...parsers };
  const prepared = new Map<string, Prepared>();
  const { serialize } = protocol;

  /** Parses `text` as the statement `name` and learns its parameters' and columns' types; kept unless unnamed. */
  const describe = async (name: string, text: string): Promise<Prepared> => {
    const messages = await pglite.execProtocolStream(concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]), { syncToFs: false });
    const parameters = messages.find((message) => message.name === "parameterDescription") as { dataTypeIDs: number[] } | undefined;
    const rows = messages.find((message) => message.name === "rowDescription") as { fields: { name: string; dataTypeID: number }[] } | undefined;
    const statement: Prepared = { parameterTypes: parameters?.dataTypeIDs ?? [], columns: rows?.fields.map(({ name: column, dataTypeID }) => ({ name: column, dataTypeID })) ?? [] };
    if (name) prepared.set(name, statement);
    return statement;
  };

  return {
    async run<Row>(text: string, values: readonly unknown[], { name, inTransaction }: { name: string | undefined; inTransaction: boolean }) {
      await locks._checkReady();
      const work = async (): Promise<Row[]> => {
        // A text past the bound of prepared names is parsed again each time, as PGlite's own query does,
        // into the unnamed statement (this lock is held from its parse to its execution).
        const statement = name === undefined ? await describe("", text) : (prepared.get(name) ?? (await describe(name, text)));
        const statementName = name ?? "";
        const serializers = pglite.serializers;
        const written = values.map((value, index) => {
          if (value === null || value === undefined) return null;
          const serializer = serializers[statement.parameterTypes[index]!];
          return serializer ? serializer(value) : String(value);
        });
        const messages = await pglite.execProtocolStream(concat([serialize.bind({ statement: statementName, values: written }), serialize.execute({}), serialize.sync()]), { syncToFs: false });
        const rows: Row[] = [];
        for (const message of messages) {
          if (message.name !== "dataRow") continue;
          const fields = (message as unknown as { fields: (string | null)[] }).fields;
          const row: Record<string, unknown> = {};
          for (let index = 0; index < statement.columns.length; index += 1) {
            const column = statement.columns[index]!;
            row[column.name] = types.parseType(fields[index] ?? null, column.dataTypeID, readers);
          }
          rows.push(row as Row);
        }
        return rows;
      };
      if (inTransaction) return locks._runExclusiveQuery(work);
      const rows = await locks._runExclusiveTransaction(() => locks._runExclusiveQuery(work));
      await pglite.syncToFs();
      return rows;
    },
  };
}
