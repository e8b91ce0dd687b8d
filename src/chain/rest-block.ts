// A CometBFT block in the Cosmos SDK REST gateway's shape (`block_id`, `header`,
// `last_commit`): what the indexer stores for each block and what the Chain API serves for
// a block it reads through from the node (docs/chain-api.md, "Blocks"). Hashes and
// addresses in base64, empty bytes as null, 64-bit integers as strings, enum names.
import { toBase64 } from '@cosmjs/encoding';
import type { Comet38Client } from '@cosmjs/tendermint-rpc';
import { nanosOf, protoTimestamp } from './timestamps.ts';

export type CometBlock = Awaited<ReturnType<Comet38Client['block']>>;
type CometBlockId = CometBlock['blockId'];

/** bytes as the gateway prints them: base64, empty as null. */
const bytes = (b: Uint8Array | null | undefined): string | null => (b && b.length > 0 ? toBase64(b) : null);

const BLOCK_ID_FLAGS = ['BLOCK_ID_FLAG_UNKNOWN', 'BLOCK_ID_FLAG_ABSENT', 'BLOCK_ID_FLAG_COMMIT', 'BLOCK_ID_FLAG_NIL'];

function restBlockId(id: CometBlockId | null) {
  return {
    hash: bytes(id?.hash),
    part_set_header: { total: id?.parts.total ?? 0, hash: bytes(id?.parts.hash) },
  };
}

/** `block_id`, `header` and `last_commit` of a block as the gateway prints them. */
export function restBlock({ blockId, block }: CometBlock) {
  const h = block.header;
  const commit = block.lastCommit;
  return {
    block_id: restBlockId(blockId),
    header: {
      version: { block: String(h.version.block), app: String(h.version.app) },
      chain_id: h.chainId,
      height: String(h.height),
      time: protoTimestamp(h.time as Date, nanosOf(h.time as Date)),
      last_block_id: restBlockId(h.lastBlockId),
      last_commit_hash: bytes(h.lastCommitHash),
      data_hash: bytes(h.dataHash),
      validators_hash: bytes(h.validatorsHash),
      next_validators_hash: bytes(h.nextValidatorsHash),
      consensus_hash: bytes(h.consensusHash),
      app_hash: bytes(h.appHash),
      last_results_hash: bytes(h.lastResultsHash),
      evidence_hash: bytes(h.evidenceHash),
      proposer_address: bytes(h.proposerAddress),
    },
    // the first block's last commit is CometBFT's empty commit
    last_commit: {
      height: String(commit?.height ?? 0),
      round: commit?.round ?? 0,
      block_id: restBlockId(commit?.blockId ?? null),
      signatures: (commit?.signatures ?? []).map((s) => ({
        block_id_flag: BLOCK_ID_FLAGS[s.blockIdFlag] ?? 'BLOCK_ID_FLAG_UNKNOWN',
        validator_address: bytes(s.validatorAddress),
        timestamp: s.timestamp
          ? protoTimestamp(s.timestamp as Date, nanosOf(s.timestamp as Date))
          : '0001-01-01T00:00:00Z',
        signature: bytes(s.signature),
      })),
    },
  };
}
