// Embedded adapter: TimescaleDB compiled to WASM (PGlite), run in a worker thread.
// It has one session: statements are sent in the order asked, several in flight at once
// (the worker runs them one after another), and a transaction holds the session alone from
// BEGIN to COMMIT.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ownBytes } from '../internal/bytes.ts';
import { createColumnTypes } from './column-types.ts';
import {
  type BinaryColumnType,
  binaryColumnType,
  checkEncodedTypes,
  columnList,
  copyBinary,
  copyText,
  createStagingSql,
  encodedCopy,
  insertStagedSql,
  quoteIdent,
  stagingTable,
} from './copy-format.ts';
import { acquireDirLock } from './dir-lock.ts';
import type { SerializedError, WorkerData, WorkerReply, WorkerRequest } from './embedded-protocol.ts';
import { storable, storableRows } from './nul.ts';
import { type Sql, statement } from './sql.ts';
import { type Database, DatabaseError, isEncodedRows, type Queryable, type ResultColumn, type Row } from './types.ts';

export interface EmbeddedOptions {
  /** Directory for the database files, or `memory://` for a database that lives only in this process. */
  dataDir: string;
  /** Called once if the database worker dies; the database is unusable afterwards. */
  onCrash?: (error: Error) => void;
  /**
   * For `memory://` only: a snapshot (`snapshot()` of another embedded database, of the same
   * build) to start from, instead of a new cluster: opening then skips initdb (~2 s).
   */
  initialData?: Uint8Array;
}

/** The embedded database, which can also hand out a copy of its files. */
export interface EmbeddedDatabase extends Database {
  /** Its data directory as a tarball: `initialData` for a new in-memory database that starts as a copy of this one. */
  snapshot(): Promise<Uint8Array>;
}

/**
 * The embedded database's one session, in the order work asks for it. A single statement is
 * sent as soon as nothing holds the session alone, even while statements sent before it are
 * still running: the worker runs them one after another in the order they came, and with the
 * next one already there it need not wait for this thread to take an answer and send another.
 * Work of several statements that nothing may come between (a transaction) holds the session
 * `alone`: it starts once every statement sent before it has answered, and whatever asks after
 * it waits until it ends.
 */
function createSession() {
  const waiting: { alone: boolean; start: () => void }[] = [];
  let inFlight = 0;
  let held = false;
  const next = () => {
    while (waiting.length > 0 && !held) {
      const head = waiting[0]!;
      if (head.alone) {
        if (inFlight > 0) return;
        held = true;
      } else inFlight++;
      waiting.shift();
      head.start();
    }
  };
  const take =
    (alone: boolean) =>
    <T>(fn: () => Promise<T>): Promise<T> =>
      new Promise<void>((start) => {
        waiting.push({ alone, start });
        next();
      })
        .then(fn)
        .finally(() => {
          if (alone) held = false;
          else inFlight--;
          next();
        });
  return { statement: take(false), alone: take(true) };
}

function startWorker(workerData: WorkerData): Worker {
  // Plain JavaScript, started without this process's flags (tsx's loader among them): the
  // thread needs no TypeScript, and a loader's thread of its own cost each open ~0.6 s of CPU.
  return new Worker(new URL('./embedded-worker.mjs', import.meta.url), { workerData, execArgv: [] });
}

/** embedded-worker.mjs's exit code after a trap of its WebAssembly. */
const TRAPPED_EXIT_CODE = 70;

const toError = (e: SerializedError) =>
  new DatabaseError(e.message, { code: e.code, detail: e.detail, position: e.position, unavailable: e.trapped });

/**
 * The worker and the messages to and from it: requests by id, NOTIFY payloads to the
 * listeners of their channel. When the worker dies every pending and later request fails
 * with one DatabaseError (and `onCrash` hears of it, unless it was closed).
 */
async function openWorkerChannel(data: WorkerData, onDeath: (error: DatabaseError, closing: boolean) => void) {
  const worker = startWorker(data);
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (e: Error) => void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let dead: DatabaseError | undefined;
  let closing = false;

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: WorkerReply) => {
      if ('id' in message) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) waiter?.resolve(message.rows);
        else waiter?.reject(toError(message.error));
      } else if (message.op === 'notify') {
        for (const fn of listeners.get(message.channel) ?? []) fn(message.payload);
      } else if (message.op === 'ready') {
        resolve();
      } else if (message.op === 'failed') {
        reject(new DatabaseError(`Embedded database failed to open: ${message.error.message}`, { unavailable: true }));
      }
    });
    const die = (error: Error) => {
      if (dead) return;
      dead = new DatabaseError(
        closing ? 'Embedded database is closed' : `Embedded database stopped: ${error.message}`,
        { unavailable: true, cause: error },
      );
      for (const waiter of pending.values()) waiter.reject(dead);
      pending.clear();
      reject(dead);
      onDeath(dead, closing);
    };
    worker.on('error', die);
    worker.on('exit', (code) =>
      die(
        new Error(
          code === TRAPPED_EXIT_CODE
            ? `its WebAssembly trapped (a statement overflowed its stack); open it again (restart the service)`
            : `worker exited with code ${code}`,
        ),
      ),
    );
  });
  await ready;

  return {
    listeners,
    isDead: () => dead !== undefined,
    /** Sends a request (its id is assigned here) and resolves with the worker's rows. */
    send: (request: DistributiveOmit<WorkerRequest, 'id'>, transfer: ArrayBuffer[] = []) =>
      new Promise<Row[]>((resolve, reject) => {
        if (dead) return reject(dead);
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ ...request, id } as WorkerRequest, transfer);
      }),
    isClosing: () => closing,
    /** From here on the worker's end is a close, not a crash. */
    beginClose() {
      closing = true;
    },
    terminate: () => worker.terminate(),
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export async function createEmbeddedDatabase({
  dataDir,
  onCrash,
  initialData,
}: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const inMemory = dataDir.startsWith('memory://');
  if (initialData && !inMemory) throw new TypeError('initialData is for an in-memory database (memory://) only');
  let releaseDirLock: (() => void) | undefined;
  let pgDir = 'memory://';
  if (!inMemory) {
    const root = path.resolve(dataDir);
    mkdirSync(root, { recursive: true });
    releaseDirLock = acquireDirLock(root);
    pgDir = path.join(root, 'pgdata');
  }

  let worker: Awaited<ReturnType<typeof openWorkerChannel>>;
  try {
    worker = await openWorkerChannel({ dataDir: pgDir, initialData }, (dead, closing) => {
      releaseDirLock?.();
      if (!closing) onCrash?.(dead);
    });
  } catch (error) {
    releaseDirLock?.();
    throw error;
  }
  const { send, listeners } = worker;
  let nextStage = 1;

  const columnTypes = createColumnTypes();

  /** A statement; `autocommit` when it runs outside any transaction (the worker may then prepare it). */
  const sendQuery = <T extends object>(
    given: string | Sql,
    values: readonly unknown[] | undefined,
    autocommit: boolean,
  ) => {
    const { text, params } = statement(given, values);
    return send({ op: 'query', text, params: params.map(storable), autocommit }) as Promise<T[]>;
  };
  const direct: Queryable = {
    query: (given, values) => sendQuery(given, values, false),
    exec: async (text: string) => void (await send({ op: 'exec', text })),
    // Rows encoded beforehand (src/indexer/chain-rows.ts) are copied as they are, once their
    // types are checked against the table's. Skipping duplicates (always inside a transaction,
    // see below): COPY into a staging table of just these columns, dropped at commit, then
    // INSERT … ON CONFLICT DO NOTHING.
    copyIn: async (table, columns, given, { ignoreDuplicates = false } = {}) => {
      const encoded = isEncodedRows(given) ? given : undefined;
      if ((encoded?.count ?? (given as unknown[]).length) === 0) return 0;
      const known = await columnTypes(table, (text, params) => send({ op: 'query', text, params }) as Promise<never>);
      if (encoded) checkEncodedTypes(table, columns, encoded, (c) => known.get(c)?.base);
      // a name of its own: copies may overlap in one transaction
      const stage = ignoreDuplicates ? stagingTable(nextStage++) : undefined;
      if (stage) await direct.exec(createStagingSql(stage, table, columns, true));
      const into = `${stage ?? quoteIdent(table)} (${columnList(columns)})`;
      const rows = encoded ? [] : storableRows(given as readonly (readonly unknown[])[]);
      const types = columns.map((c) => binaryColumnType(known.get(c)?.base));
      const binary = encoded
        ? ownBytes(Buffer.concat([...encodedCopy(encoded)])) // of its own, to be moved to the database's thread
        : types.every((t): t is BinaryColumnType => t !== undefined)
          ? copyBinary(types, rows)
          : undefined;
      if (binary)
        await send({ op: 'copy', text: `COPY ${into} FROM '/dev/blob' (FORMAT binary)`, data: binary }, [
          binary.buffer as ArrayBuffer,
        ]);
      // a type the binary encoder does not write (or a column that does not exist, which COPY reports)
      else await send({ op: 'copy', text: `COPY ${into} FROM '/dev/blob'`, data: copyText(rows) });
      if (!stage) return encoded?.count ?? rows.length;
      const [stored] = await direct.query<{ n: number }>(insertStagedSql(stage, table, columns));
      return stored!.n;
    },
  };
  const turns = createSession();
  /** Runs `fn` between BEGIN and COMMIT (ROLLBACK when it throws); the caller holds the session. */
  const inTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    await direct.exec('BEGIN');
    try {
      const result = await fn();
      await direct.exec('COMMIT');
      return result;
    } catch (error) {
      if (!worker.isDead()) await direct.exec('ROLLBACK').catch(() => {});
      throw error;
    }
  };

  const shared: Queryable = {
    query: (text, params) => turns.statement(() => sendQuery(text, params, true)),
    exec: (text) => turns.statement(() => direct.exec(text)),
    // a copy that skips duplicates takes two statements: in a transaction of its own here
    copyIn: (table, columns, rows, options) =>
      options?.ignoreDuplicates
        ? turns.alone(() => inTransaction(() => direct.copyIn(table, columns, rows, options)))
        : turns.statement(() => direct.copyIn(table, columns, rows)),
  };

  return {
    kind: 'embedded',
    ...shared,
    transaction: (fn) => turns.alone(() => inTransaction(() => fn(direct))),
    // The one session is shared: statements of `fn` queue with everyone else's.
    session: (fn) => fn(shared),
    // Held from BEGIN to ROLLBACK like a transaction: nobody else's statement runs inside it,
    // and whatever `fn` did (a SET, an error that aborts the transaction) ends with it.
    readOnly: (fn, { role } = {}) =>
      turns.alone(async () => {
        await direct.exec(`BEGIN READ ONLY;${role ? ` SET LOCAL ROLE ${quoteIdent(role)};` : ''}`);
        try {
          return await fn({
            query: direct.query,
            describe: async (text) => (await send({ op: 'describe', text })) as unknown as ResultColumn[],
          });
        } finally {
          if (!worker.isDead()) await direct.exec('ROLLBACK').catch(() => {});
        }
      }),
    async listen(channel, onNotify, onListen) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await turns.alone(() => send({ op: 'listen', channel }));
      }
      set.add(onNotify);
      onListen?.(); // in-process: the subscription is never lost and re-established
      return async () => {
        set.delete(onNotify);
        if (set.size === 0 && listeners.get(channel) === set) {
          listeners.delete(channel);
          if (!worker.isDead()) await turns.alone(() => send({ op: 'unlisten', channel }));
        }
      };
    },
    // One process owns the data directory (see dir-lock.ts), so the process is the only
    // writer; the advisory lock keeps the same SQL path as the server adapter.
    async advisoryLock(key) {
      await turns.alone(() => direct.query('SELECT pg_advisory_lock($1::bigint)', [key]));
      // the one session ends only with the process (or the worker's death, which ends everything)
      return {
        lost: false,
        release: async () =>
          void (await turns.alone(() => direct.query('SELECT pg_advisory_unlock($1::bigint)', [key]))),
      };
    },
    snapshot: async () => {
      const [row] = await turns.alone(() => send({ op: 'snapshot' }));
      return (row as { tar: Uint8Array }).tar;
    },
    async close() {
      if (worker.isDead() || worker.isClosing()) return;
      worker.beginClose();
      await turns.alone(() => send({ op: 'close' }));
      await worker.terminate();
      releaseDirLock?.();
    },
  };
}
