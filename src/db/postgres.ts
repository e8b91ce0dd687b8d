// Server adapter: a TimescaleDB (PostgreSQL) server reached with postgres.js.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { createColumnTypes } from './column-types.ts';
import {
  type BinaryColumnType,
  binaryColumnType,
  checkEncodedTypes,
  columnList,
  copyBinaryChunks,
  copyTarget,
  createStagingSql,
  encodedCopy,
  insertStagedSql,
  quoteIdent,
  stagingTable,
  valueText,
} from './copy-format.ts';
import { storable, storableRows } from './nul.ts';
import { type Sql, statement } from './sql.ts';
import {
  type Database,
  DatabaseError,
  type EncodedRows,
  errorPosition,
  isConflictCode,
  isEncodedRows,
  parseInt8,
  type Queryable,
} from './types.ts';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P03',
]);

/** How long a statement given up for a conflict waits before it is sent again (up to twice this). */
const CONFLICT_PAUSE_MS = 50;

/**
 * A driver or server failure as a DatabaseError. An error thrown by the caller's own code
 * inside a transaction (a MigrationError, a TypeError) is returned as it is.
 */
function wrap(error: unknown): unknown {
  if (error instanceof DatabaseError) return error;
  if (!isDriverError(error)) return error;
  const e = error as { message?: string; code?: string; detail?: string; errno?: string; position?: string };
  const code = e?.code ?? e?.errno;
  return new DatabaseError(e?.message ?? String(error), {
    code,
    detail: e?.detail,
    position: errorPosition(e?.position),
    unavailable: code !== undefined && CONNECTION_CODES.has(code),
    cause: error,
  });
}

/** postgres.js's own errors: the server's (PostgresError) and its connection errors (an upper-case code). */
function isDriverError(error: unknown): boolean {
  if (error instanceof postgres.PostgresError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) && !code.startsWith('ERR_');
}

/**
 * postgres.js types an array parameter by its first element (an array of booleans is sent
 * as one boolean), so arrays go as PostgreSQL array literals and the SQL's cast
 * (`$1::boolean[]`) types them, as the embedded adapter does.
 */
function arrayLiteral(values: readonly unknown[]): string {
  const element = (v: unknown): string => {
    if (v === null || v === undefined) return 'NULL';
    if (Array.isArray(v) || v instanceof Uint8Array)
      throw new TypeError(
        'nested arrays and byte arrays inside arrays are not supported; send hex text and decode() it',
      );
    return quotedElement(valueText(v));
  };
  return `{${values.map(element).join(',')}}`;
}

const ARRAY_ESCAPE = /[\\"]/;
const ARRAY_ESCAPES = /[\\"]/g;

/** Text as a quoted element of an array literal (backslashes and quotes escaped). */
const quotedElement = (text: string) => `"${ARRAY_ESCAPE.test(text) ? text.replace(ARRAY_ESCAPES, '\\$&') : text}"`;

/** Thrown out of a read-only transaction to end it with ROLLBACK. */
const ROLLBACK = Symbol('rollback');

const toParameter = (p: unknown) => (Array.isArray(p) ? arrayLiteral(p) : p);

/**
 * A COPY value as an element of an array literal: bytes as \x hex (written straight, hex
 * needs no escapes), JSON documents as their text, the rest as its text quoted.
 */
function copyElement(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Uint8Array) return `"\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}"`;
  return quotedElement(valueText(v));
}

/**
 * The rows' columns as array literals, a statement's worth at a time: about
 * COPY_STATEMENT_BYTES of literals each, however the rows' sizes vary. A batch of 5,000 txs
 * (~2.5 kB of hex each) goes as several statements, so no one of them holds the thread for
 * long while it is written out, and each is made only when the one before has been sent.
 */
const COPY_STATEMENT_BYTES = 1 << 20;
/** A binary COPY's data is sent in pieces of this size, each encoded when the one before was taken. */
const COPY_CHUNK_BYTES = 256 * 1024;
function* copyStatements(
  rows: readonly (readonly unknown[])[],
  width: number,
  limit = COPY_STATEMENT_BYTES,
): Generator<string[]> {
  let columns: string[][] = Array.from({ length: width }, () => []);
  let bytes = 0;
  const literals = () => columns.map((c) => `{${c.join(',')}}`);
  for (const row of rows) {
    for (let i = 0; i < width; i++) {
      const element = copyElement(row[i]);
      columns[i]!.push(element);
      bytes += element.length + 1;
    }
    if (bytes >= limit) {
      yield literals();
      columns = Array.from({ length: width }, () => []);
      bytes = 0;
    }
  }
  if (columns[0]!.length > 0) yield literals();
}

export interface ServerOptions {
  url: string;
  /** Pool size; the embedded adapter has exactly one session. */
  max?: number;
}

export function createServerDatabase({ url, max = 10 }: ServerOptions): Database {
  const connect = (size: number, onclose?: () => void, backoff: (attempt: number) => number = () => 0) =>
    postgres(url, {
      max: size,
      onnotice: () => {},
      onclose,
      connect_timeout: 10,
      // A lost connection is re-opened on the next query at once: while the server is down
      // each query fails fast (and the API answers 503), instead of queueing behind
      // postgres.js's growing reconnect delay (up to 20 s). Callers retry with their own backoff.
      backoff,
      types: {
        int8: { to: 20, from: [20], serialize: (v: unknown) => String(v), parse: parseInt8 },
        // A string sent for json/jsonb is the document's text (as PostgreSQL casts text, and as
        // the embedded adapter sends it); postgres.js alone would send it as a JSON string value.
        json: {
          to: 114,
          from: [114, 3802],
          serialize: (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v)),
          parse: (v: string) => JSON.parse(v),
        },
      },
      // No JIT compilation: the service's statements are short, and a plan the planner rates
      // costly (a page of txs read from the columnstore, estimated at thousands of rows) would
      // spend ~10 ms compiling what runs in a few (README "The columnstore").
      connection: { application_name: 'launchpad-index', jit: 'off' },
    });
  const sql = connect(max);
  /**
   * LISTEN's connection, on a client of its own: postgres.js opens it again by itself after a
   * loss, and with no delay it tried in a loop while the server was down (a fifth to almost
   * half a core); here after 50 ms, doubling up to 2 s.
   */
  let listener: postgres.Sql | undefined;
  const listenerClient = () => (listener ??= connect(1, undefined, (attempt) => Math.min(0.05 * 2 ** attempt, 2)));

  const columnTypes = createColumnTypes();
  let nextStage = 1;
  /**
   * `prepared: false`: never a named statement (many different texts leave nothing on the connection).
   * `on`: what `s` is, which decides how a copy of several statements is kept all or nothing
   * (inside the transaction already; in one begun for it on the pool; sent as one statement on
   * a session, whose caller may be in a transaction of its own) and whether a statement given
   * up for a conflict is sent again (on the pool only, where it was its own transaction).
   */
  const queryOn = (
    s: postgres.Sql | postgres.TransactionSql,
    { prepared = true, on = 'transaction' as 'transaction' | 'pool' | 'session' } = {},
  ): Queryable => {
    type On = postgres.Sql | postgres.TransactionSql;
    /** A binary COPY FROM STDIN of `chunks` (whole COPY data, header to trailer) into `into`. */
    const copyFromStdin = async (conn: On, into: string, chunks: Iterable<Uint8Array>) => {
      const writable = await conn.unsafe(`COPY ${into} FROM STDIN (FORMAT binary)`).writable();
      await pipeline(Readable.from(chunks), writable);
    };
    /** The table's column types, read once (column-types.ts). */
    const typesOf = (table: string) =>
      columnTypes(table, (text, params) => s.unsafe(text, params as postgres.ParameterOrJSON<never>[]));
    /**
     * Runs `fn` on this connection; on the pool, in a transaction of its own, which reserves the
     * connection: a query the pool sent down it while a copy streams would break the copy's
     * protocol. A transaction's or a session's connection is its caller's, who awaits the copy.
     */
    const reserved = <T>(fn: (conn: On) => Promise<T>): Promise<T> =>
      on === 'pool' ? ((s as postgres.Sql).begin((tx) => fn(tx)) as Promise<T>) : fn(s);
    // Rows encoded beforehand (src/indexer/chain-rows.ts) are streamed as they are. Skipping
    // duplicates takes a staging table of these columns, copied into and then inserted from
    // with ON CONFLICT DO NOTHING, dropped after: in one transaction, begun for it on the pool.
    const copyEncoded = async (table: string, columns: readonly string[], rows: EncodedRows, skip: boolean) => {
      if (rows.count === 0) return 0;
      try {
        const types = await typesOf(table);
        checkEncodedTypes(table, columns, rows, (c) => types.get(c)?.base);
        const staged = async (conn: On) => {
          const stage = stagingTable(nextStage++);
          await conn.unsafe(createStagingSql(stage, table, columns, false));
          try {
            await copyFromStdin(conn, `${stage} (${columnList(columns)})`, encodedCopy(rows));
            const [stored] = await conn.unsafe<{ n: number }[]>(insertStagedSql(stage, table, columns));
            return stored!.n;
          } finally {
            await conn.unsafe(`DROP TABLE IF EXISTS ${stage}`).catch(() => {}); // in a failed transaction, gone with it
          }
        };
        return await reserved(async (conn) => {
          if (skip) return staged(conn);
          await copyFromStdin(conn, copyTarget(table, columns), encodedCopy(rows));
          return rows.count;
        });
      } catch (error) {
        throw wrap(error);
      }
    };
    return {
      async query<T extends object>(given: string | Sql, values?: readonly unknown[]) {
        const { text, params } = statement(given, values);
        const send = () =>
          s.unsafe(text, params.map((p) => toParameter(storable(p))) as postgres.ParameterOrJSON<never>[], {
            prepare: prepared && params.length > 0,
          });
        try {
          // postgres.js resolves to its Result (an Array subclass with query metadata);
          // the seam promises plain arrays of rows, as the embedded adapter returns.
          let result: postgres.RowList<postgres.Row[]>;
          try {
            result = await send();
          } catch (error) {
            // On the pool a statement is its own transaction, rolled back whole when the server
            // gives it up for a conflict: sent again, it does what it would have done (what
            // commits partway, a CALL of a procedure that commits, goes through a session). Once,
            // after the other transaction has had a moment to finish (a compression holds its
            // chunk's locks until it commits); a second conflict is the caller's (the APIs answer
            // 503 with Retry-After). Inside a transaction or a session the caller's transaction
            // is what failed.
            if (on !== 'pool' || !isConflictCode((error as { code?: string }).code)) throw error;
            await new Promise((resolve) => setTimeout(resolve, CONFLICT_PAUSE_MS * (1 + Math.random())));
            result = await send();
          }
          return Array.from(result) as unknown as T[];
        } catch (error) {
          throw wrap(error);
        }
      },
      async exec(script: string) {
        try {
          await s.unsafe(script).simple();
        } catch (error) {
          throw wrap(error);
        }
      },
      // Rows as arrays of values: a copy that fails on a duplicate is COPY … FROM STDIN in the
      // binary format (bytea as its bytes, not hex; no array literals for the server to parse),
      // streamed in pieces; one statement, so all or nothing by itself. postgres.js is patched
      // to report the server's error when it comes after the data (patches/postgres+3.4.9.patch). A copy that skips
      // duplicates, or of a type the binary encoder does not write, is one INSERT … SELECT FROM
      // unnest(…) typed by the table's columns (ON CONFLICT needs an INSERT).
      async copyIn(table, columns, rows, { ignoreDuplicates = false } = {}) {
        if (isEncodedRows(rows)) return copyEncoded(table, columns, rows, ignoreDuplicates);
        if (rows.length === 0) return 0;
        try {
          const types = await typesOf(table);
          const casts = columns.map((c, i) => {
            const type = types.get(c);
            if (!type) throw new DatabaseError(`column ${c} of ${table} does not exist`, { code: '42703' });
            return `$${i + 1}::${type.declared}[]`;
          });
          const values = storableRows(rows);
          const binary = columns.map((c) => binaryColumnType(types.get(c)?.base));
          if (!ignoreDuplicates && binary.every((t): t is BinaryColumnType => t !== undefined)) {
            await reserved((conn) =>
              copyFromStdin(conn, copyTarget(table, columns), copyBinaryChunks(binary, values, COPY_CHUNK_BYTES)),
            );
            return rows.length;
          }
          const text = `WITH stored AS (INSERT INTO ${copyTarget(table, columns)} SELECT * FROM unnest(${casts.join(', ')}) ${ignoreDuplicates ? 'ON CONFLICT DO NOTHING' : ''} RETURNING 1)
           SELECT count(*)::int AS n FROM stored`;
          const send = async (on: postgres.Sql | postgres.TransactionSql, params: string[]) =>
            (await on.unsafe<{ n: number }[]>(text, params))[0]!.n;
          const limit = on === 'session' ? Number.POSITIVE_INFINITY : COPY_STATEMENT_BYTES;
          const statements = copyStatements(values, columns.length, limit);
          // the first two made before any is sent: one alone needs no transaction of its own
          const first = statements.next().value as string[]; // rows is not empty
          const second = statements.next();
          const sendAll = async (on: postgres.Sql | postgres.TransactionSql) => {
            let n = await send(on, first);
            if (!second.done) n += await send(on, second.value);
            for (const params of statements) n += await send(on, params);
            return n;
          };
          if (second.done || on !== 'pool') return await sendAll(s);
          return (await (s as postgres.Sql).begin((tx) => sendAll(tx))) as number;
        } catch (error) {
          throw wrap(error);
        }
      },
    };
  };

  const root = queryOn(sql, { on: 'pool' });
  return {
    kind: 'server',
    ...root,
    async transaction(fn) {
      try {
        return (await sql.begin((tx) => fn(queryOn(tx)))) as Awaited<ReturnType<typeof fn>>;
      } catch (error) {
        throw wrap(error);
      }
    },
    // Ended by throwing, so that postgres.js rolls it back.
    async readOnly(fn, { role, timeoutMs } = {}) {
      let result: Awaited<ReturnType<typeof fn>> | undefined;
      try {
        await sql.begin('read only', async (tx) => {
          if (timeoutMs !== undefined)
            await tx.unsafe(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
          if (role) await tx.unsafe(`SET LOCAL ROLE ${quoteIdent(role)}`);
          result = await fn({
            query: queryOn(tx, { prepared: false }).query,
            describe: async (text) =>
              (await tx.unsafe(text).describe()).columns.map((c) => ({ name: c.name, type: c.type })),
          });
          throw ROLLBACK;
        });
      } catch (error) {
        if (error !== ROLLBACK) throw wrap(error);
      }
      return result as Awaited<ReturnType<typeof fn>>;
    },
    // Work that needs one session gets a client of one connection of its own, ended after:
    // a reserved pool connection whose backend died could hang its next statement.
    async session(fn) {
      const one = connect(1);
      try {
        return await fn(queryOn(one, { on: 'session' }));
      } finally {
        await one.end({ timeout: 5 }).catch(() => {});
      }
    },
    async listen(channel, onNotify, onListen) {
      try {
        const { unlisten } = await listenerClient().listen(channel, onNotify, onListen);
        return unlisten;
      } catch (error) {
        throw wrap(error);
      }
    },
    // A session lock lives on a one-connection client of its own. When that connection
    // closes for any reason (the backend was terminated, the server restarted) the lock is
    // gone with it: `lost` says so, and the client is not reused for anything else.
    async advisoryLock(key, { wait = true, signal } = {}) {
      let lost = false;
      const one = connect(1, () => (lost = true));
      const end = () => one.end({ timeout: 5 }).catch(() => {});
      try {
        for (;;) {
          const [row] = await one.unsafe('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
          if (row?.ok) {
            if (lost)
              throw new DatabaseError('the connection holding the lock closed', {
                code: 'CONNECTION_CLOSED',
                unavailable: true,
              });
            return {
              get lost() {
                return lost;
              },
              async release() {
                try {
                  if (!lost) await one.unsafe('SELECT pg_advisory_unlock($1::bigint)', [key]);
                } finally {
                  await end();
                }
              },
            };
          }
          if (!wait || signal?.aborted) {
            await end();
            return undefined;
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
      } catch (error) {
        await end();
        throw wrap(error);
      }
    },
    async close() {
      await Promise.all([sql.end({ timeout: 5 }), listener?.end({ timeout: 5 })]);
    },
  };
}
