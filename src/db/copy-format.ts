// PostgreSQL's COPY text format, for bulk writes through either adapter: one line per
// row, tab-separated, \N for null, backslash escapes, bytea as \x hex.

import { asBuffer } from '../internal/bytes.ts';
import { storableRows } from './nul.ts';
import { type BinaryColumnType, DatabaseError, type EncodedRows } from './types.ts';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NEEDS_ESCAPE = /[\\\t\n\r]/;

function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string')
    return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array)
    return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  const json = JSON.stringify(value);
  return NEEDS_ESCAPE.test(json) ? json.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : json;
}

/** Rows (arrays in column order) as COPY text. Objects become JSON (for json/jsonb columns). */
export function copyText(rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += '\t';
      out += field(row[i]);
    }
    out += '\n';
  }
  return out;
}

/** An identifier, quoted. */
export const quoteIdent = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** `"a", "b"`: quoted column names. */
export const columnList = (columns: readonly string[]) => columns.map(quoteIdent).join(', ');

/** `"table" ("a", "b")` for COPY, with identifiers quoted. */
export function copyTarget(table: string, columns: readonly string[]): string {
  return `${quoteIdent(table)} (${columnList(columns)})`;
}

// PostgreSQL's COPY binary format, the bulk load of both adapters: no text to escape and
// parse, bytea without hex (half the bytes); one buffer handed to the embedded database's
// worker without copying, pieces streamed to a server (`copyBinaryChunks`). Column types come
// from the catalog (see `binaryColumnType`).

export type { BinaryColumnType };

const BINARY_TYPES = new Set<string>([
  'text',
  'character varying',
  'smallint',
  'integer',
  'bigint',
  'numeric',
  'timestamp with time zone',
  'bytea',
  'jsonb',
  'json',
  'boolean',
]);

/** The encoder's name for a catalog type name (`regtype::text`), or undefined when it has none. */
export function binaryColumnType(type: string | undefined): BinaryColumnType | undefined {
  if (type === undefined || !BINARY_TYPES.has(type)) return undefined;
  return (type === 'character varying' ? 'text' : type) as BinaryColumnType;
}

const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]; // PGCOPY\n\377\r\n\0
const POSTGRES_EPOCH_MICROS = 946_684_800_000_000n; // 2000-01-01T00:00:00Z
const POSTGRES_EPOCH_MS = 946_684_800_000;
/** Integers a double holds exactly, as text: up to 15 digits. */
const SHORT_INTEGER = /^-?\d{1,15}$/;
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** A growing buffer that owns its memory (transferable to a worker). */
class Writer {
  buf: Buffer;
  pos = 0;
  constructor(size = 1 << 16) {
    this.buf = Buffer.from(new ArrayBuffer(size));
  }
  ensure(n: number) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.from(new ArrayBuffer(size));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  int16(v: number) {
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(v, this.pos);
  }
  int32(v: number) {
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(v, this.pos);
  }
  /** A field of UTF-8 text: its length, then its bytes. */
  utf8Field(s: string, prefix?: number) {
    const head = prefix === undefined ? 0 : 1;
    this.ensure(4 + head + s.length * 3);
    const start = this.pos + 4;
    if (prefix !== undefined) this.buf[start] = prefix;
    const n = this.buf.write(s, start + head, 'utf8');
    this.buf.writeInt32BE(n + head, this.pos);
    this.pos = start + head + n;
  }
  /**
   * A safe integer as a big-endian int64, without BigInt (Node's writeBigInt64BE allocates
   * several BigInts a call): the high word by division, which rounds a negative one down as
   * two's complement needs.
   */
  int64(v: number) {
    this.ensure(8);
    const high = Math.floor(v / 4294967296);
    this.buf.writeInt32BE(high, this.pos);
    this.buf.writeUInt32BE(v - high * 4294967296, this.pos + 4);
    this.pos += 8;
  }
  bytesField(b: Uint8Array) {
    this.ensure(4 + b.byteLength);
    this.pos = this.buf.writeInt32BE(b.byteLength, this.pos);
    this.buf.set(b, this.pos);
    this.pos += b.byteLength;
  }
}

const EXPONENT = /^([+-])?(\d+)(?:\.(\d*))?e([+-]?\d+)$/i;

/** `1.5e3` → `1500`, `25e-4` → `0.0025` (numeric accepts exponents; the encoder wants digits). */
function withoutExponent(s: string): string | undefined {
  const m = EXPONENT.exec(s);
  if (!m) return undefined;
  const [, sign, whole, fraction = '', exp] = m;
  const digits = `${whole}${fraction}`;
  const point = whole!.length + Number(exp);
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? `${digits}${'0'.repeat(point - digits.length)}`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${sign === '-' ? '-' : ''}${body}`;
}

// A number, integer or boolean the binary encoder cannot write is refused as PostgreSQL's own
// input functions refuse its text (what an INSERT of it would report): SQLSTATE and message
// alike. Bytes for a bytea column must be bytes (a TypeError otherwise).
const invalidInput = (type: string, v: unknown) =>
  new DatabaseError(`invalid input syntax for type ${type}: "${String(v)}"`, { code: '22P02' });
const outOfRange = (type: string, v: unknown) =>
  new DatabaseError(`value "${String(v)}" is out of range for type ${type}`, { code: '22003' });

/** NaN and the infinities as numeric's input reads them: `nan`, `[+-]inf`, `[+-]infinity`, any case. */
const SPECIAL_NUMERIC = /^\s*(?:(nan)|([+-])?inf(?:inity)?)\s*$/i;

/** numeric's sign word for NaN and the infinities (PostgreSQL 14 and later). */
function specialNumeric(v: unknown): number | undefined {
  if (typeof v === 'number')
    return Number.isNaN(v) ? 0xc000 : v === Infinity ? 0xd000 : v === -Infinity ? 0xf000 : undefined;
  const m = typeof v === 'string' ? SPECIAL_NUMERIC.exec(v) : null;
  return !m ? undefined : m[1] ? 0xc000 : m[2] === '-' ? 0xf000 : 0xd000;
}

function decimalText(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  let s: string | undefined;
  if (typeof v === 'number' && Number.isFinite(v)) s = Number.isInteger(v) ? BigInt(v).toString() : String(v);
  else if (typeof v === 'string')
    s = v
      .trim()
      .replace(/^\+/, '')
      .replace(/^(-?)\.(?=\d)/, '$10.') // `.5` is 0.5
      .replace(/(\d)\.$/, '$1'); // `5.` is 5
  if (s !== undefined) {
    if (DECIMAL.test(s)) return s;
    const expanded = withoutExponent(s);
    if (expanded !== undefined && DECIMAL.test(expanded)) return expanded;
  }
  throw invalidInput('numeric', v);
}

function integer(v: unknown, bits: 16 | 32): number {
  const n =
    typeof v === 'string' && v.trim() !== ''
      ? Number(v)
      : typeof v === 'number' || typeof v === 'bigint'
        ? Number(v)
        : NaN;
  const type = bits === 16 ? 'smallint' : 'integer';
  if (!Number.isInteger(n)) throw invalidInput(type, v);
  const limit = 2 ** (bits - 1);
  if (n < -limit || n >= limit) throw outOfRange(type, v);
  return n;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** A bigint column's value, as int8's input takes it: an integer, or its decimal digits as text. */
function bigint64(v: unknown): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && INTEGER_TEXT.test(v)) n = BigInt(v.trim());
  else throw invalidInput('bigint', v);
  if (n < INT64_MIN || n > INT64_MAX) throw outOfRange('bigint', v);
  return n;
}

const TRUE = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const FALSE = new Set(['f', 'false', 'n', 'no', 'off', '0']);

function boolean(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  const text = String(v).trim().toLowerCase();
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw invalidInput('boolean', v);
}

/**
 * A whole number of decimal digits (`/^\d+$/`) as numeric's binary form: the common case of
 * the index's amounts (bigints), without the general path's regular expressions and arrays.
 */
function writeWholeNumber(w: Writer, digits: string) {
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
  const length = digits.length - start;
  const groups = Math.ceil(length / 4);
  // the first group takes what is left over; each one after, four digits
  const head = start + length - 4 * (groups - 1) - 4;
  let used = groups; // trailing zero groups are left out (the weight keeps their place)
  while (used > 0 && digitGroup(digits, Math.max(start, head + 4 * (used - 1)), head + 4 * used) === 0) used--;
  w.int32(8 + used * 2);
  w.int16(used);
  w.int16(used === 0 ? 0 : groups - 1);
  w.int16(0);
  w.int16(0);
  for (let g = 0; g < used; g++) w.int16(digitGroup(digits, Math.max(start, head + 4 * g), head + 4 * g + 4));
}

/** The number the decimal digits `digits[from, to)` spell. */
function digitGroup(digits: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + digits.charCodeAt(i) - 48;
  return n;
}

/** numeric's binary form: base-10000 digit groups with a weight, sign and display scale. */
function writeNumeric(w: Writer, v: unknown) {
  if (typeof v === 'bigint' && v >= 0n) return writeWholeNumber(w, v.toString());
  const special = specialNumeric(v);
  if (special !== undefined) {
    w.int32(8);
    w.int16(0);
    w.int16(0);
    w.int16(special - 0x10000); // the unsigned word, as int16 writes it
    w.int16(0);
    return;
  }
  const [, minus, whole, fraction = ''] = DECIMAL.exec(decimalText(v))!;
  const intDigits = whole!.replace(/^0+/, '');
  const intGroups: number[] = [];
  for (let end = intDigits.length; end > 0; end -= 4)
    intGroups.unshift(Number(intDigits.slice(Math.max(0, end - 4), end)));
  const fracGroups: number[] = [];
  for (let i = 0; i < fraction.length; i += 4) fracGroups.push(Number(fraction.slice(i, i + 4).padEnd(4, '0')));
  const digits = [...intGroups, ...fracGroups];
  let weight = intGroups.length - 1;
  while (digits.length && digits[0] === 0) {
    digits.shift();
    weight--;
  }
  while (digits.length && digits[digits.length - 1] === 0) digits.pop();
  if (digits.length === 0) weight = 0;
  w.int32(8 + digits.length * 2);
  w.int16(digits.length);
  w.int16(weight);
  w.int16(minus && digits.length ? 0x4000 : 0);
  w.int16(fraction.length);
  for (const d of digits) w.int16(d);
}

function timestampMicros(v: unknown): bigint {
  if (v instanceof Date) return BigInt(v.getTime()) * 1000n - POSTGRES_EPOCH_MICROS;
  if (typeof v === 'string') {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) throw invalidInput('timestamp with time zone', v);
    // Date keeps milliseconds; the microseconds of a longer fraction are added back,
    // rounded to the microsecond as PostgreSQL rounds (half to even)
    const rest = /\.\d{3}(\d+)/.exec(v)?.[1] ?? '';
    let micros = Number(rest.slice(0, 3).padEnd(3, '0'));
    const beyond = rest.slice(3);
    if (beyond && (beyond[0]! > '5' || (beyond[0] === '5' && (/[1-9]/.test(beyond.slice(1)) || micros % 2 === 1))))
      micros++;
    return BigInt(ms) * 1000n + BigInt(micros) - POSTGRES_EPOCH_MICROS;
  }
  throw invalidInput('timestamp with time zone', v);
}

const jsonText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A value of a text column as its text: dates as ISO 8601, objects and arrays as JSON. */
export const valueText = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : v instanceof Date
      ? v.toISOString()
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

function writeField(w: Writer, type: BinaryColumnType, v: unknown) {
  if (v === null || v === undefined) return w.int32(-1);
  switch (type) {
    case 'text':
      return w.utf8Field(valueText(v));
    case 'smallint':
      w.int32(2);
      return w.int16(integer(v, 16));
    case 'integer':
      w.int32(4);
      return w.int32(integer(v, 32));
    case 'bigint':
      w.int32(8);
      if (typeof v === 'number' && Number.isSafeInteger(v)) return w.int64(v);
      if (typeof v === 'string' && SHORT_INTEGER.test(v)) return w.int64(Number(v)); // a tx's gas, say
      w.ensure(8);
      w.pos = w.buf.writeBigInt64BE(bigint64(v), w.pos);
      return;
    case 'numeric':
      return writeNumeric(w, v);
    case 'timestamp with time zone':
      w.int32(8);
      if (v instanceof Date) {
        // microseconds since 2000 as a double: exact for any date within ±285,000 years of it
        const micros = (v.getTime() - POSTGRES_EPOCH_MS) * 1000;
        if (Number.isSafeInteger(micros)) return w.int64(micros);
      }
      w.ensure(8);
      w.pos = w.buf.writeBigInt64BE(timestampMicros(v), w.pos);
      return;
    case 'bytea':
      if (v instanceof Uint8Array) return w.bytesField(v);
      if (typeof v === 'string' && /^\\x[0-9a-fA-F]*$/.test(v)) return w.bytesField(Buffer.from(v.slice(2), 'hex'));
      throw new TypeError('bytea values must be bytes');
    case 'jsonb':
      return w.utf8Field(jsonText(v), 1); // jsonb's binary form: version 1, then the text
    case 'json':
      return w.utf8Field(jsonText(v));
    case 'boolean':
      w.int32(1);
      w.ensure(1);
      w.buf[w.pos++] = boolean(v) ? 1 : 0;
      return;
  }
}

const TRAILER = -1;

/** COPY's binary header: its signature, no flags, no header extension. */
function startCopy(w: Writer) {
  w.ensure(19);
  w.buf.set(SIGNATURE, w.pos);
  w.pos += SIGNATURE.length;
  w.int32(0); // flags
  w.int32(0); // header extension length
}

function writeRow(w: Writer, types: readonly BinaryColumnType[], row: readonly unknown[]) {
  if (row.length !== types.length) throw new TypeError(`a row has ${row.length} values for ${types.length} columns`);
  w.int16(types.length);
  for (let i = 0; i < types.length; i++) writeField(w, types[i]!, row[i]);
}

/** Rows (arrays in column order) in COPY's binary format, in a buffer of their own. */
export function copyBinary(types: readonly BinaryColumnType[], rows: readonly (readonly unknown[])[]): Uint8Array {
  const [all] = copyBinaryChunks(types, rows, Number.POSITIVE_INFINITY);
  return all!;
}

/**
 * The same bytes as `copyBinary`, in pieces of about `chunkBytes` (whole rows each), each
 * made only when the one before has been taken: a COPY of megabytes is streamed to the
 * server without holding the thread or the memory of all of it at once. A value the encoder
 * refuses throws from the piece that holds it. Each piece is a view of a buffer of its own.
 */
export function* copyBinaryChunks(
  types: readonly BinaryColumnType[],
  rows: readonly (readonly unknown[])[],
  chunkBytes: number,
): Generator<Buffer> {
  // room for a piece and its last row; a buffer that grows for the whole copy
  const size = Number.isFinite(chunkBytes) ? chunkBytes + (chunkBytes >> 2) : undefined;
  let w = new Writer(size);
  startCopy(w);
  for (const row of rows) {
    writeRow(w, types, row);
    if (w.pos >= chunkBytes) {
      yield w.buf.subarray(0, w.pos);
      w = new Writer(size);
    }
  }
  w.int16(TRAILER);
  yield w.buf.subarray(0, w.pos);
}

/**
 * Rows (arrays in column order) as `EncodedRows`: COPY's binary rows without its header and
 * trailer, in one buffer of their own (transferable to another thread) that starts at
 * `sizeHint` bytes and grows when they need more. A U+0000 in a text is stored as U+FFFD, as
 * every copy stores it. A value the encoder refuses throws here, where the rows are made.
 */
export function encodeRows(
  types: readonly BinaryColumnType[],
  rows: readonly (readonly unknown[])[],
  sizeHint = 1 << 16,
): EncodedRows {
  const w = new Writer(Math.max(16, sizeHint));
  for (const row of storableRows(rows)) writeRow(w, types, row);
  // a plain Uint8Array, as it arrives when moved from another thread
  return { types, count: rows.length, pieces: [new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.pos)] };
}

/** Several `EncodedRows` of the same columns as one (their pieces in order). */
export function joinEncodedRows(all: readonly EncodedRows[]): EncodedRows {
  const [first] = all;
  if (!first) throw new TypeError('no encoded rows to join');
  for (const rows of all)
    if (rows.types.length !== first.types.length || rows.types.some((t, i) => t !== first.types[i]))
      throw new TypeError(`encoded rows of other columns: ${rows.types.join(', ')} and ${first.types.join(', ')}`);
  const pieces = all.flatMap((r) => r.pieces).filter((p) => p.byteLength > 0);
  return { types: first.types, count: all.reduce((n, r) => n + r.count, 0), pieces };
}

/** Encoded rows as a whole binary COPY: its header, their pieces, its trailer. */
export function* encodedCopy(rows: EncodedRows): Generator<Buffer> {
  const head = new Writer(19);
  startCopy(head);
  yield head.buf.subarray(0, head.pos);
  // pieces from another thread come as Uint8Arrays: Buffers of the same bytes, as streams take them
  for (const p of rows.pieces) yield asBuffer(p);
  const tail = new Writer(2);
  tail.int16(TRAILER);
  yield tail.buf.subarray(0, tail.pos);
}

/**
 * Checks that rows encoded as `rows.types` fit the table's columns, whose types the catalog
 * gives (`binaryColumnType` of each one's base type): a clear error before any byte is sent,
 * where PostgreSQL would report a misread field.
 */
export function checkEncodedTypes(
  table: string,
  columns: readonly string[],
  rows: EncodedRows,
  baseTypeOf: (column: string) => string | undefined,
): void {
  if (rows.types.length !== columns.length)
    throw new TypeError(`rows encoded for ${rows.types.length} columns, copied into ${columns.length}`);
  columns.forEach((c, i) => {
    const base = baseTypeOf(c);
    if (base === undefined) throw new DatabaseError(`column ${c} of ${table} does not exist`, { code: '42703' });
    if (binaryColumnType(base) !== rows.types[i])
      throw new DatabaseError(`column ${c} of ${table} is ${base}, but its rows were encoded as ${rows.types[i]}`, {
        code: '42804',
      });
  });
}

// A copy that skips duplicates through a staging table (both adapters): COPY into an empty
// temporary table of just the copied columns, then INSERT … ON CONFLICT DO NOTHING from it.

/** The staging table numbered `n`, in the session's own schema of temporary tables (whatever the search path finds first). */
export const stagingTable = (n: number) => `pg_temp.${quoteIdent(`copy_stage_${n}`)}`;

/** Makes `stage`: `columns` of `table`, no rows; dropped at commit when `onCommitDrop`. */
export const createStagingSql = (stage: string, table: string, columns: readonly string[], onCommitDrop: boolean) =>
  `CREATE TEMP TABLE ${stage}${onCommitDrop ? ' ON COMMIT DROP' : ''} AS SELECT ${columnList(columns)} FROM ${quoteIdent(table)} WITH NO DATA`;

/** Inserts the staged rows that are not stored yet; answers their count as `n`. */
export const insertStagedSql = (stage: string, table: string, columns: readonly string[]) =>
  `WITH stored AS (INSERT INTO ${copyTarget(table, columns)} SELECT ${columnList(columns)} FROM ${stage} ON CONFLICT DO NOTHING RETURNING 1)
   SELECT count(*)::int AS n FROM stored`;
