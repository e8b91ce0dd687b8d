// A CometBFT block in the Cosmos SDK REST gateway's shape (`block_id`, `header`,
// `last_commit`, and `evidence` when the block has some): what the indexer stores for each
// block and what the Chain API serves for a block it reads through from the node
// (docs/chain-api.md, "Blocks"). Hashes and addresses in base64, empty bytes as null,
// 64-bit integers as strings, enum names.
import { fromHex, toBase64 } from '@cosmjs/encoding';
import type { Comet38Client } from '@cosmjs/tendermint-rpc';
import { signedMsgTypeToJSON } from 'cosmjs-types/tendermint/types/types';
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

/** `block_id`, `header`, `last_commit` and (when there is any) `evidence` of a block as the gateway prints them. */
export function restBlock({ blockId, block }: CometBlock) {
  const h = block.header;
  const commit = block.lastCommit;
  const evidence = (block.evidence as unknown[]).map(restEvidence).filter((e) => e !== undefined);
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
    ...(evidence.length > 0 ? { evidence } : {}),
  };
}

// --- evidence: cosmjs keeps each item as CometBFT's RPC wrote it (amino JSON, hex hashes) ---

// biome-ignore lint/suspicious/noExplicitAny: the node's JSON, read field by field with defaults
type Rpc = any;

/** Hex (the RPC's hashes and addresses) to base64; empty (or not hex) as null. */
function hexBytes(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  try {
    return toBase64(fromHex(v));
  } catch {
    return null;
  }
}
/** Base64 kept as it is; empty as null. */
const b64 = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const int64 = (v: unknown) => String(v ?? '0');

/** RFC 3339 with up to 9 fractional digits (the RPC trims zeros) as jsonpb prints it (0, 3, 6 or 9 digits). */
export function rfc3339Timestamp(text: unknown): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(String(text ?? ''));
  if (!m) return '0001-01-01T00:00:00Z';
  return protoTimestamp(new Date(`${m[1]}Z`), Number((m[2] ?? '').padEnd(9, '0')));
}

function rpcBlockId(id: Rpc) {
  return {
    hash: hexBytes(id?.hash),
    part_set_header: { total: Number(id?.parts?.total ?? 0), hash: hexBytes(id?.parts?.hash) },
  };
}

function rpcVote(v: Rpc) {
  return {
    type: signedMsgTypeToJSON(Number(v?.type ?? 0)),
    height: int64(v?.height),
    round: Number(v?.round ?? 0),
    block_id: rpcBlockId(v?.block_id),
    timestamp: rfc3339Timestamp(v?.timestamp),
    validator_address: hexBytes(v?.validator_address),
    validator_index: Number(v?.validator_index ?? 0),
    signature: b64(v?.signature),
    extension: b64(v?.extension),
    extension_signature: b64(v?.extension_signature),
  };
}

function rpcHeader(h: Rpc) {
  return {
    version: { block: int64(h?.version?.block), app: int64(h?.version?.app) },
    chain_id: String(h?.chain_id ?? ''),
    height: int64(h?.height),
    time: rfc3339Timestamp(h?.time),
    last_block_id: rpcBlockId(h?.last_block_id),
    last_commit_hash: hexBytes(h?.last_commit_hash),
    data_hash: hexBytes(h?.data_hash),
    validators_hash: hexBytes(h?.validators_hash),
    next_validators_hash: hexBytes(h?.next_validators_hash),
    consensus_hash: hexBytes(h?.consensus_hash),
    app_hash: hexBytes(h?.app_hash),
    last_results_hash: hexBytes(h?.last_results_hash),
    evidence_hash: hexBytes(h?.evidence_hash),
    proposer_address: hexBytes(h?.proposer_address),
  };
}

function rpcCommit(c: Rpc) {
  return {
    height: int64(c?.height),
    round: Number(c?.round ?? 0),
    block_id: rpcBlockId(c?.block_id),
    signatures: ((c?.signatures ?? []) as Rpc[]).map((s) => ({
      block_id_flag: BLOCK_ID_FLAGS[Number(s.block_id_flag)] ?? 'BLOCK_ID_FLAG_UNKNOWN',
      validator_address: hexBytes(s.validator_address),
      timestamp: rfc3339Timestamp(s.timestamp),
      signature: b64(s.signature),
    })),
  };
}

/** The RPC's amino key (`{"type": "tendermint/PubKeyEd25519", "value"}`) as tendermint.crypto.PublicKey's oneof. */
function rpcPublicKey(k: Rpc) {
  if (k?.type === 'tendermint/PubKeySecp256k1') return { secp256k1: b64(k.value) };
  return { ed25519: b64(k?.value) };
}

function rpcValidator(v: Rpc) {
  return {
    address: hexBytes(v?.address),
    pub_key: rpcPublicKey(v?.pub_key),
    voting_power: int64(v?.voting_power),
    proposer_priority: int64(v?.proposer_priority),
  };
}

function rpcValidatorSet(s: Rpc) {
  const validators = ((s?.validators ?? []) as Rpc[]).map(rpcValidator);
  return {
    validators,
    proposer: s?.proposer ? rpcValidator(s.proposer) : null,
    // the RPC leaves the total out; it is the sum of the powers
    total_voting_power: validators
      .reduce((sum, v) => sum + (/^-?\d+$/.test(v.voting_power) ? BigInt(v.voting_power) : 0n), 0n)
      .toString(),
  };
}

/**
 * One evidence item of the RPC's block as the gateway prints tendermint.types.Evidence:
 * the oneof member that is set. Undefined for a kind CometBFT does not define.
 */
export function restEvidence(item: Rpc) {
  const v = item?.value;
  if (item?.type === 'tendermint/DuplicateVoteEvidence') {
    return {
      duplicate_vote_evidence: {
        vote_a: v?.vote_a ? rpcVote(v.vote_a) : null,
        vote_b: v?.vote_b ? rpcVote(v.vote_b) : null,
        total_voting_power: int64(v?.TotalVotingPower),
        validator_power: int64(v?.ValidatorPower),
        timestamp: rfc3339Timestamp(v?.Timestamp),
      },
    };
  }
  if (item?.type === 'tendermint/LightClientAttackEvidence') {
    const block = v?.ConflictingBlock;
    return {
      light_client_attack_evidence: {
        conflicting_block: block
          ? {
              signed_header: block.signed_header
                ? { header: rpcHeader(block.signed_header.header), commit: rpcCommit(block.signed_header.commit) }
                : null,
              validator_set: block.validator_set ? rpcValidatorSet(block.validator_set) : null,
            }
          : null,
        common_height: int64(v?.CommonHeight),
        byzantine_validators: ((v?.ByzantineValidators ?? []) as Rpc[]).map(rpcValidator),
        total_voting_power: int64(v?.TotalVotingPower),
        timestamp: rfc3339Timestamp(v?.Timestamp),
      },
    };
  }
  return undefined;
}
