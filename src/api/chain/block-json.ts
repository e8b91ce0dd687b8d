// Blocks as the gateway prints them (docs/chain-api.md, "Blocks"): `block_id`, the CometBFT
// `block` (with its evidence) and the SDK's `sdk_block` (the same with the proposer as a
// bech32 consensus address), built from the stored REST parts (src/chain/rest-block.ts)
// and the block's tx bytes. The index keeps the parts as jsonb, which does not keep key
// order: they are laid out again here in the gateway's order.
import { fromBase64, toBech32 } from '@cosmjs/encoding';
import { base64 } from './proto-json.ts';

/** `block_id`, `header`, `last_commit` and `evidence` (absent when none), as stored or as shaped from the node. */
export interface BlockParts {
  block_id: unknown;
  header: Record<string, unknown>;
  last_commit: unknown;
  evidence?: unknown[];
}

// biome-ignore lint/suspicious/noExplicitAny: stored JSON, read field by field with defaults
type Loose = any;

/** Empty bytes are null in the gateway's JSON (older rows of the index hold ''). */
const bytes = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function blockId(id: Loose) {
  return {
    hash: bytes(id?.hash),
    part_set_header: { total: Number(id?.part_set_header?.total ?? 0), hash: bytes(id?.part_set_header?.hash) },
  };
}

function header(h: Loose) {
  return {
    version: { block: String(h.version?.block ?? '0'), app: String(h.version?.app ?? '0') },
    chain_id: String(h.chain_id),
    height: String(h.height),
    time: String(h.time),
    last_block_id: blockId(h.last_block_id),
    last_commit_hash: bytes(h.last_commit_hash),
    data_hash: bytes(h.data_hash),
    validators_hash: bytes(h.validators_hash),
    next_validators_hash: bytes(h.next_validators_hash),
    consensus_hash: bytes(h.consensus_hash),
    app_hash: bytes(h.app_hash),
    last_results_hash: bytes(h.last_results_hash),
    evidence_hash: bytes(h.evidence_hash),
    proposer_address: bytes(h.proposer_address),
  };
}

/** The last commit; the first block's (stored as null by older indexers) is CometBFT's empty commit. */
function lastCommit(c: Loose) {
  return {
    height: String(c?.height ?? '0'),
    round: Number(c?.round ?? 0),
    block_id: blockId(c?.block_id),
    signatures: ((c?.signatures ?? []) as Loose[]).map((s) => ({
      block_id_flag: String(s.block_id_flag),
      validator_address: bytes(s.validator_address),
      timestamp: String(s.timestamp),
      signature: bytes(s.signature),
    })),
  };
}

function vote(v: Loose) {
  if (!v) return null;
  return {
    type: String(v.type ?? 'SIGNED_MSG_TYPE_UNKNOWN'),
    height: String(v.height ?? '0'),
    round: Number(v.round ?? 0),
    block_id: blockId(v.block_id),
    timestamp: String(v.timestamp),
    validator_address: bytes(v.validator_address),
    validator_index: Number(v.validator_index ?? 0),
    signature: bytes(v.signature),
    extension: bytes(v.extension),
    extension_signature: bytes(v.extension_signature),
  };
}

function validator(v: Loose) {
  if (!v) return null;
  const key = v.pub_key ?? {};
  return {
    address: bytes(v.address),
    pub_key: 'secp256k1' in key ? { secp256k1: bytes(key.secp256k1) } : { ed25519: bytes(key.ed25519) },
    voting_power: String(v.voting_power ?? '0'),
    proposer_priority: String(v.proposer_priority ?? '0'),
  };
}

/** One tendermint.types.Evidence: only its member that is set, as the gateway prints a oneof. */
function evidenceItem(e: Loose) {
  if (e?.duplicate_vote_evidence) {
    const d = e.duplicate_vote_evidence;
    return {
      duplicate_vote_evidence: {
        vote_a: vote(d.vote_a),
        vote_b: vote(d.vote_b),
        total_voting_power: String(d.total_voting_power ?? '0'),
        validator_power: String(d.validator_power ?? '0'),
        timestamp: String(d.timestamp),
      },
    };
  }
  const l = e?.light_client_attack_evidence;
  const block = l?.conflicting_block;
  const signed = block?.signed_header;
  const set = block?.validator_set;
  return {
    light_client_attack_evidence: {
      conflicting_block: block
        ? {
            signed_header: signed ? { header: header(signed.header), commit: lastCommit(signed.commit) } : null,
            validator_set: set
              ? {
                  validators: ((set.validators ?? []) as Loose[]).map(validator),
                  proposer: validator(set.proposer),
                  total_voting_power: String(set.total_voting_power ?? '0'),
                }
              : null,
          }
        : null,
      common_height: String(l?.common_height ?? '0'),
      byzantine_validators: ((l?.byzantine_validators ?? []) as Loose[]).map(validator),
      total_voting_power: String(l?.total_voting_power ?? '0'),
      timestamp: String(l?.timestamp),
    },
  };
}

/** The CometBFT block (`block` of GetBlockByHeight and GetBlockWithTxs) and its id. */
export function cometBlockJson(parts: BlockParts, txs: readonly Uint8Array[]) {
  return {
    block_id: blockId(parts.block_id),
    block: {
      header: header(parts.header),
      data: { txs: txs.map(base64) },
      evidence: { evidence: ((parts.evidence ?? []) as Loose[]).map(evidenceItem) },
      last_commit: lastCommit(parts.last_commit),
    },
  };
}

/** A consensus address (base64 bytes) in bech32 with the chain's `<prefix>valcons`. */
function valcons(proposer: string | null, prefix: string): string {
  return proposer ? toBech32(prefix, fromBase64(proposer)) : '';
}

/** GetBlockByHeight / GetLatestBlock: `block_id`, `block` and `sdk_block` (SDK 0.47+). */
export function blockJson(parts: BlockParts, txs: readonly Uint8Array[], consensusPrefix: string) {
  const { block_id, block } = cometBlockJson(parts, txs);
  const sdkHeader = { ...block.header, proposer_address: valcons(block.header.proposer_address, consensusPrefix) };
  return { block_id, block, sdk_block: { ...block, header: sdkHeader } };
}

/**
 * GetBlockByHeight's answer as bytes: `JSON.stringify(blockJson(…))`'s very bytes, with each
 * tx's base64 written straight in (it is ASCII, needing no escapes), not scanned by
 * JSON.stringify and encoded as UTF-8 again: a block of 1,000 txs is 1.2 MB of them, twice.
 */
export function blockJsonBytes(parts: BlockParts, txs: readonly Uint8Array[], consensusPrefix: string): Buffer {
  const { block_id, block, sdk_block } = blockJson(parts, [], consensusPrefix);
  const encoded = txs.map(base64);
  // the members in blockJson's order, the txs of each block between `[` and `]`
  const rest = `]},"evidence":${JSON.stringify(block.evidence)},"last_commit":${JSON.stringify(block.last_commit)}}`;
  const pieces = [
    `{"block_id":${JSON.stringify(block_id)},"block":{"header":${JSON.stringify(block.header)},"data":{"txs":[`,
    `${rest},"sdk_block":{"header":${JSON.stringify(sdk_block.header)},"data":{"txs":[`,
    `${rest}}`,
  ];
  const listBytes = encoded.reduce((sum, tx) => sum + tx.length + 3, 0) - (encoded.length > 0 ? 1 : 0);
  const bytes = Buffer.allocUnsafeSlow(pieces.reduce((sum, p) => sum + Buffer.byteLength(p), 0) + 2 * listBytes);
  let at = bytes.write(pieces[0]!);
  const list = at;
  for (let i = 0; i < encoded.length; i++) {
    if (i > 0) bytes[at++] = 0x2c; // ,
    bytes[at++] = 0x22; // "
    at += bytes.write(encoded[i]!, at, 'latin1');
    bytes[at++] = 0x22;
  }
  const listEnd = at;
  at += bytes.write(pieces[1]!, at);
  at += bytes.copy(bytes, at, list, listEnd);
  at += bytes.write(pieces[2]!, at);
  if (at !== bytes.length) throw new Error(`block ${parts.header.height}: ${at} of ${bytes.length} bytes written`);
  return bytes;
}
