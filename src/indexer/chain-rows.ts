// A block's txs as the chain index stores them (`txs`, `tx_hashes`, `tx_attribute_refs`),
// made where the block is read (src/indexer/shape-block.ts; on the block worker for large
// blocks): the rows of `txs` and `tx_hashes` already encoded for COPY, the indexed attribute
// pairs numbered within the block. From the moment a block is read until its batch is
// written, the indexer's thread then keeps its bytes and its distinct pairs, not some 25
// objects a tx that each of its young-generation collections would copy (README "Backfill").
import type { StoredLog } from '../chain/stored-logs.ts';
import { encodeRows } from '../db/copy-format.ts';
import type { BinaryColumnType, EncodedRows } from '../db/types.ts';

/** A tx of a block as its rows are made from. */
export interface FetchedTx {
  hash: string; // upper-case hex
  index: number;
  code: number;
  bytes: Uint8Array;
  codespace: string;
  /** The log as stored (src/chain/stored-logs.ts). */
  log: StoredLog;
  gasWanted: string;
  gasUsed: string;
  /** The tx's events as stored (src/chain/stored-events.ts). */
  packedEvents: Buffer;
  /** Its distinct [type.key, value] pairs of the indexed attributes (src/chain/indexed-attributes.ts). */
  attributes: [string, string][];
}

/** The columns of `txs` a tx is written to, and their types (sql/0018_txs_hash_bytes.sql and after). */
export const TX_COLUMNS = [
  'hash',
  'height',
  'tx_index',
  'time',
  'code',
  'codespace',
  'raw_log',
  'log_packed',
  'log_form',
  'gas_wanted',
  'gas_used',
  'tx_bytes',
  'events',
] as const;
const TX_TYPES: readonly BinaryColumnType[] = [
  'bytea',
  'bigint',
  'integer',
  'timestamp with time zone',
  'integer',
  'text',
  'text',
  'bytea',
  'text',
  'bigint',
  'bigint',
  'bytea',
  'bytea',
];

/** The way in by hash (sql/0019_chain_index_columnstore.sql). */
export const HASH_COLUMNS = ['hash', 'height', 'tx_index'] as const;
const HASH_TYPES: readonly BinaryColumnType[] = ['bytea', 'bigint', 'integer'];

/** A block's txs' indexed attribute pairs: the distinct ones, and which tx has which. */
export interface BlockAttributes {
  /** The distinct pairs of the block: (keys[i], values[i]). */
  keys: string[];
  values: string[];
  /** Two numbers a tx's pair: its tx index, then the pair's i. */
  refs: Int32Array;
}

/** A block's txs as rows of `txs` and `tx_hashes`, encoded, and their attribute pairs. */
export interface ChainRows {
  txs: EncodedRows;
  hashes: EncodedRows;
  attributes: BlockAttributes;
}

/**
 * At most what a row of `txs` takes: ~130 bytes of lengths and numbers, its bytes, and its
 * texts as UTF-8. Too little and the buffer is made again at twice the size for the last rows:
 * more memory made a block, which V8 counts towards its next collection.
 */
const txRowBytes = (t: FetchedTx) =>
  160 +
  t.bytes.byteLength +
  t.packedEvents.byteLength +
  (t.log.packed?.byteLength ?? 0) +
  3 * (t.log.text.length + t.codespace.length + (t.log.form?.length ?? 0));

/** The rows of a block's txs: the block's height and time are theirs. */
export function chainRows(height: number, time: Date, txs: readonly FetchedTx[]): ChainRows {
  const txRows: unknown[][] = [];
  const hashRows: unknown[][] = [];
  let size = 0;
  for (const t of txs) {
    const hash = Buffer.from(t.hash, 'hex'); // stored as its bytes; a sha256 the indexer made
    hashRows.push([hash, height, t.index]);
    txRows.push([
      hash,
      height,
      t.index,
      time,
      t.code,
      t.codespace,
      t.log.text,
      t.log.packed,
      t.log.form,
      t.gasWanted,
      t.gasUsed,
      t.bytes,
      t.packedEvents,
    ]);
    size += txRowBytes(t);
  }
  return {
    txs: encodeRows(TX_TYPES, txRows, size),
    hashes: encodeRows(HASH_TYPES, hashRows, 60 * hashRows.length),
    attributes: attributesOf(txs),
  };
}

function attributesOf(txs: readonly FetchedTx[]): BlockAttributes {
  const keys: string[] = [];
  const values: string[] = [];
  const numbers = new Map<string, Map<string, number>>(); // each key's values' i
  const refs: number[] = [];
  for (const t of txs) {
    for (const [key, value] of t.attributes) {
      const ofKey = numbers.get(key) ?? new Map<string, number>();
      if (ofKey.size === 0) numbers.set(key, ofKey);
      let i = ofKey.get(value);
      if (i === undefined) {
        i = keys.length;
        ofKey.set(value, i);
        keys.push(key);
        values.push(value);
      }
      refs.push(t.index, i);
    }
  }
  return { keys, values, refs: Int32Array.from(refs) };
}

/** Each of the blocks' attribute pairs, with duplicates across blocks. */
export function* attributePairs(all: readonly BlockAttributes[]): Generator<[string, string]> {
  for (const { keys, values } of all) for (let i = 0; i < keys.length; i++) yield [keys[i]!, values[i]!];
}
