// Reads blocks and their results from the node through cosmjs, several heights in
// flight at once, and shapes them into what the indexer writes. A block's events are
// decoded, packed and indexed as soon as it arrives, so the parsed results (~5 kB of
// objects per transaction) die young instead of waiting in memory for their batch.
import { createHash } from 'node:crypto';
import { toBase64, toHex } from '@cosmjs/encoding';
import type { Comet38Client } from '@cosmjs/tendermint-rpc';
import type { ChainClient } from '../chain/client.ts';
import { indexedAttributes } from '../chain/indexed-attributes.ts';
import { packEvents } from '../chain/stored-events.ts';
import { nanosOf, protoTimestamp } from '../chain/timestamps.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { type DecodeResult, decodeBlockEvents, type RawEvent, type RawTx } from './decode-events.ts';
import { BlockShapeError } from './errors.ts';

export interface FetchedTx {
  hash: string; // upper-case hex
  index: number;
  code: number;
  bytes: Uint8Array;
  codespace: string;
  log: string;
  gasWanted: string;
  gasUsed: string;
  /** The tx's events as stored (src/chain/stored-events.ts). */
  packedEvents: Buffer;
  /** Its distinct [type.key, value] pairs of the indexed attributes (src/chain/indexed-attributes.ts). */
  attributes: [string, string][];
}

export interface FetchedBlock {
  height: number;
  hash: string; // upper-case hex
  lastBlockHash: string; // upper-case hex, '' for the first block of a chain
  time: Date;
  timeRfc3339: string; // exact, with nanoseconds
  chainId: string;
  proposer: string; // upper-case hex consensus address
  txs: FetchedTx[];
  /** The launchpad's and AMM's events of its txs, decoded. */
  decoded: DecodeResult;
  /** block_id, header and last_commit in the Cosmos REST shape (the Chain API serves it). */
  rest: object;
}

/** CometBFT 0.38 `block_results`, as the node sends it. */
export interface BlockResultsJson {
  txs_results:
    | null
    | {
        code?: number;
        codespace?: string;
        log?: string;
        gas_wanted?: string;
        gas_used?: string;
        events?: null | { type: string; attributes?: null | { key?: string | null; value?: string | null }[] }[];
      }[];
}

const upperHex = (b: Uint8Array) => toHex(b).toUpperCase();

type CometBlock = Awaited<ReturnType<Comet38Client['block']>>;
type CometBlockId = CometBlock['blockId'];

function restBlockId(id: CometBlockId | null) {
  return {
    hash: id ? toBase64(id.hash) : '',
    part_set_header: { total: id?.parts.total ?? 0, hash: id ? toBase64(id.parts.hash) : '' },
  };
}

function restShape({ blockId, block }: CometBlock) {
  const h = block.header;
  return {
    block_id: restBlockId(blockId),
    header: {
      version: { block: String(h.version.block), app: String(h.version.app) },
      chain_id: h.chainId,
      height: String(h.height),
      time: protoTimestamp(h.time as Date, nanosOf(h.time as Date)),
      last_block_id: restBlockId(h.lastBlockId),
      last_commit_hash: toBase64(h.lastCommitHash),
      data_hash: toBase64(h.dataHash),
      validators_hash: toBase64(h.validatorsHash),
      next_validators_hash: toBase64(h.nextValidatorsHash),
      consensus_hash: toBase64(h.consensusHash),
      app_hash: toBase64(h.appHash),
      last_results_hash: toBase64(h.lastResultsHash),
      evidence_hash: toBase64(h.evidenceHash),
      proposer_address: toBase64(h.proposerAddress),
    },
    last_commit: block.lastCommit
      ? {
          height: String(block.lastCommit.height),
          round: block.lastCommit.round,
          block_id: restBlockId(block.lastCommit.blockId),
          signatures: block.lastCommit.signatures.map((s) => ({
            block_id_flag:
              ['BLOCK_ID_FLAG_UNKNOWN', 'BLOCK_ID_FLAG_ABSENT', 'BLOCK_ID_FLAG_COMMIT', 'BLOCK_ID_FLAG_NIL'][
                s.blockIdFlag
              ] ?? 'BLOCK_ID_FLAG_UNKNOWN',
            validator_address: s.validatorAddress ? toBase64(s.validatorAddress) : null,
            timestamp: s.timestamp
              ? protoTimestamp(s.timestamp as Date, nanosOf(s.timestamp as Date))
              : '0001-01-01T00:00:00Z',
            signature: s.signature ? toBase64(s.signature) : null,
          })),
        }
      : null,
  };
}

/** The node's events as RawEvents, normalised in place (absent attributes and values). */
export function eventsOf(raw: NonNullable<BlockResultsJson['txs_results']>[number]['events']): RawEvent[] {
  const events = raw ?? [];
  for (const e of events) {
    if (!e.attributes) e.attributes = [];
    for (const a of e.attributes) {
      // CometBFT leaves empty strings out of its JSON (e.g. the fee of a zero-fee tx)
      if (a.key == null) a.key = '';
      if (a.value == null) a.value = '';
    }
  }
  return events as RawEvent[];
}

export async function fetchBlock(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
): Promise<FetchedBlock> {
  // block through cosmjs's decoder; block_results raw through cosmjs's RPC client: its
  // adaptor re-creates every event attribute and costs ~60 µs per tx on full blocks.
  const [response, results] = await Promise.all([
    chain.comet.block(height),
    chain.rawCall<BlockResultsJson>('block_results', { height: String(height) }),
  ]);
  try {
    return shapeBlock(height, response, results, contracts);
  } catch (error) {
    throw new BlockShapeError(`block ${height}: ${(error as Error).message}`, { cause: error });
  }
}

function shapeBlock(
  height: number,
  response: CometBlock,
  results: BlockResultsJson,
  contracts: ContractAddresses,
): FetchedBlock {
  const { block } = response;
  const txResults = results.txs_results ?? [];
  if (txResults.length !== block.txs.length) {
    throw new Error(`block ${height} has ${block.txs.length} txs but ${txResults.length} results`);
  }
  const headerTime = block.header.time as Date; // cosmjs's DateWithNanoseconds
  const time = new Date(headerTime.getTime());
  const raw: RawTx[] = [];
  const txs = block.txs.map((bytes, index): FetchedTx => {
    const r = txResults[index]!;
    const events = eventsOf(r.events);
    const hash = createHash('sha256').update(bytes).digest('hex').toUpperCase();
    const code = r.code ?? 0;
    raw.push({ hash, index, code, events });
    return {
      hash,
      index,
      code,
      bytes,
      codespace: r.codespace ?? '',
      log: r.log ?? '',
      gasWanted: r.gas_wanted ?? '0',
      gasUsed: r.gas_used ?? '0',
      packedEvents: packEvents(events),
      attributes: indexedAttributes(events),
    };
  });
  return {
    height,
    hash: upperHex(response.blockId.hash),
    lastBlockHash: block.header.lastBlockId ? upperHex(block.header.lastBlockId.hash) : '',
    time,
    timeRfc3339: protoTimestamp(headerTime, nanosOf(headerTime)),
    chainId: block.header.chainId,
    proposer: upperHex(block.header.proposerAddress),
    txs,
    decoded: decodeBlockEvents({ height, time, txs: raw }, contracts),
    rest: restShape(response),
  };
}

/** Fetches heights [from, to] with up to `concurrency` requests in flight; resolves in height order. */
export async function fetchBlocks(
  chain: ChainClient,
  from: number,
  to: number,
  contracts: ContractAddresses,
  concurrency = 8,
): Promise<FetchedBlock[]> {
  const out: FetchedBlock[] = new Array(to - from + 1);
  let next = from;
  const worker = async () => {
    for (let h = next++; h <= to; h = next++) out[h - from] = await fetchBlock(chain, h, contracts);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, to - from + 1) }, worker));
  return out;
}
