// The consensus-side facts of the devnet: its validator set as CometBFT sees it (bonded
// validators, voting power = tokens / 10^6), the proposer rotation, and placeholder commit
// signatures (the devnet is its own single source of truth; nobody verifies them).
import { sha256 } from '@cosmjs/crypto';
import { toAscii } from '@cosmjs/encoding';
import type { CometVersion } from '../core/protocol.ts';
import type { Staking } from '../state/staking.ts';
import { concatBytes, merkleRoot } from './hashes.ts';

export interface ConsensusValidator {
  address: Uint8Array;
  pubkey: Uint8Array;
  votingPower: bigint;
}

export interface Consensus {
  validators: ConsensusValidator[];
  validatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  proposerAt(height: number): ConsensusValidator;
  /** Deterministic 64-byte stand-in for a validator's vote signature on a block. */
  commitSignature(validator: ConsensusValidator, blockHash: Uint8Array): Uint8Array;
}

export const CONSENSUS_PARAMS = {
  block: { max_bytes: '22020096', max_gas: '-1' },
  evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
  validator: { pub_key_types: ['ed25519'] },
  version: { app: '0' },
  abci: { vote_extensions_enable_height: '0' },
};

const EVIDENCE = CONSENSUS_PARAMS.evidence;
const VALIDATOR = CONSENSUS_PARAMS.validator;

/**
 * The consensus parameters as each version writes them. In the genesis document: 0.34 keeps
 * `time_iota_ms` and leaves a zero app version out; 0.37 writes `version.app`; 0.38 adds
 * `abci`. In `consensus_param_updates` (the SDK returns them at every EndBlock): 0.34's ABCI
 * params hold no version (SDK 0.45 stores none), 0.37's hold an empty one (zero left out).
 */
export function consensusParamsOf(version: CometVersion, where: 'genesis' | 'updates'): object {
  if (version === '0.38') return CONSENSUS_PARAMS;
  const block = { max_bytes: CONSENSUS_PARAMS.block.max_bytes, max_gas: CONSENSUS_PARAMS.block.max_gas };
  if (version === '0.34') {
    return where === 'genesis'
      ? { block: { ...block, time_iota_ms: '1000' }, evidence: EVIDENCE, validator: VALIDATOR, version: {} }
      : { block, evidence: EVIDENCE, validator: VALIDATOR };
  }
  return { block, evidence: EVIDENCE, validator: VALIDATOR, version: where === 'genesis' ? { app: '0' } : {} };
}

export function createConsensus(staking: Staking): Consensus {
  const validators = staking.bondedValidators().map((v) => ({
    address: v.consensusAddress,
    pubkey: v.consensusPubkey,
    votingPower: v.tokens / 1_000_000n,
  }));
  const validatorsHash = merkleRoot(validators.map((v) => concatBytes(v.pubkey, toAscii(v.votingPower.toString()))));
  return {
    validators,
    validatorsHash,
    consensusHash: sha256(toAscii(JSON.stringify(CONSENSUS_PARAMS))),
    proposerAt: (height) => validators[height % validators.length]!,
    commitSignature: (validator, blockHash) =>
      concatBytes(sha256(concatBytes(validator.address, blockHash)), sha256(concatBytes(blockHash, validator.address))),
  };
}
