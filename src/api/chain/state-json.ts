// The chain state the node answers (bank, staking, mint, gov v1, node info, accounts) in
// the gateway's JSON: keys in proto order and snake_case, enums by name, LegacyDec with 18
// decimals, durations and timestamps as text, Any with "@type" (docs/chain-api.md, "JSON").
import { BaseAccount, ModuleAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import type { Metadata } from 'cosmjs-types/cosmos/bank/v1beta1/bank';
import type { GetNodeInfoResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import type { DepositParams, Params as GovParams, TallyParams, VotingParams } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { QueryParamsResponse as GovParamsResponse } from 'cosmjs-types/cosmos/gov/v1/query';
import type { Params as MintParams } from 'cosmjs-types/cosmos/mint/v1beta1/mint';
import {
  bondStatusToJSON,
  type DelegationResponse,
  type Pool,
  type Params as StakingParams,
  type Validator,
} from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import { anyJson, bytes, coin, coins, dec18, duration, int64, messageJson, timestamp } from './proto-json.ts';

/** An optional Duration: its text, or `null` when the node left it out. */
const optionalDuration = (d: Duration | undefined) => (d ? duration(d) : null);

// --- bank ---

export const metadataJson = (m: Metadata) => ({
  description: m.description,
  denom_units: m.denomUnits.map((u) => ({ denom: u.denom, exponent: u.exponent, aliases: [...u.aliases] })),
  base: m.base,
  display: m.display,
  name: m.name,
  symbol: m.symbol,
  uri: m.uri,
  uri_hash: m.uriHash,
});

// --- staking ---

/** A validator as `GET /cosmos/staking/v1beta1/validators` prints it (SDK v0.47+ fields). */
export const validatorJson = (v: Validator) => ({
  operator_address: v.operatorAddress,
  consensus_pubkey: v.consensusPubkey ? anyJson(v.consensusPubkey) : null,
  jailed: v.jailed,
  status: bondStatusToJSON(v.status),
  tokens: v.tokens,
  delegator_shares: dec18(v.delegatorShares),
  description: {
    moniker: v.description.moniker,
    identity: v.description.identity,
    website: v.description.website,
    security_contact: v.description.securityContact,
    details: v.description.details,
  },
  unbonding_height: int64(v.unbondingHeight),
  unbonding_time: timestamp(v.unbondingTime),
  commission: {
    commission_rates: {
      rate: dec18(v.commission.commissionRates.rate),
      max_rate: dec18(v.commission.commissionRates.maxRate),
      max_change_rate: dec18(v.commission.commissionRates.maxChangeRate),
    },
    update_time: timestamp(v.commission.updateTime),
  },
  min_self_delegation: v.minSelfDelegation,
  unbonding_on_hold_ref_count: int64(v.unbondingOnHoldRefCount),
  unbonding_ids: v.unbondingIds.map(int64),
});

export const delegationResponseJson = (d: DelegationResponse) => ({
  delegation: {
    delegator_address: d.delegation.delegatorAddress,
    validator_address: d.delegation.validatorAddress,
    shares: dec18(d.delegation.shares),
  },
  balance: coin(d.balance),
});

export const poolJson = (p: Pool | undefined) => ({
  not_bonded_tokens: p?.notBondedTokens ?? '0',
  bonded_tokens: p?.bondedTokens ?? '0',
});

export const stakingParamsJson = (p: StakingParams) => ({
  unbonding_time: duration(p.unbondingTime),
  max_validators: p.maxValidators,
  max_entries: p.maxEntries,
  historical_entries: p.historicalEntries,
  bond_denom: p.bondDenom,
  min_commission_rate: dec18(p.minCommissionRate),
});

// --- mint ---

export const mintParamsJson = (p: MintParams) => ({
  mint_denom: p.mintDenom,
  inflation_rate_change: dec18(p.inflationRateChange),
  inflation_max: dec18(p.inflationMax),
  inflation_min: dec18(p.inflationMin),
  goal_bonded: dec18(p.goalBonded),
  blocks_per_year: int64(p.blocksPerYear),
});

// --- gov v1 (its decimals are plain strings on the wire, printed as the node holds them) ---

const votingParamsJson = (p: VotingParams) => ({ voting_period: optionalDuration(p.votingPeriod) });
const depositParamsJson = (p: DepositParams) => ({
  min_deposit: coins(p.minDeposit),
  max_deposit_period: optionalDuration(p.maxDepositPeriod),
});
const tallyParamsJson = (p: TallyParams) => ({
  quorum: p.quorum,
  threshold: p.threshold,
  veto_threshold: p.vetoThreshold,
});

/** gov v1 `Params` with the SDK v0.50 fields (expedited proposals, cancel ratio, deposit ratio). */
export const govParamsJson = (p: GovParams) => ({
  min_deposit: coins(p.minDeposit),
  max_deposit_period: optionalDuration(p.maxDepositPeriod),
  voting_period: optionalDuration(p.votingPeriod),
  quorum: p.quorum,
  threshold: p.threshold,
  veto_threshold: p.vetoThreshold,
  min_initial_deposit_ratio: p.minInitialDepositRatio,
  proposal_cancel_ratio: p.proposalCancelRatio,
  proposal_cancel_dest: p.proposalCancelDest,
  expedited_voting_period: optionalDuration(p.expeditedVotingPeriod),
  expedited_threshold: p.expeditedThreshold,
  expedited_min_deposit: coins(p.expeditedMinDeposit),
  burn_vote_quorum: p.burnVoteQuorum,
  burn_proposal_deposit_prevote: p.burnProposalDepositPrevote,
  burn_vote_veto: p.burnVoteVeto,
  min_deposit_ratio: p.minDepositRatio,
});

/** `GET /cosmos/gov/v1/params/{type}`: the requested legacy section, `null` for the others, and the whole `params`. */
export const govParamsResponseJson = (r: GovParamsResponse) => ({
  voting_params: r.votingParams ? votingParamsJson(r.votingParams) : null,
  deposit_params: r.depositParams ? depositParamsJson(r.depositParams) : null,
  tally_params: r.tallyParams ? tallyParamsJson(r.tallyParams) : null,
  params: r.params ? govParamsJson(r.params) : null,
});

// --- tendermint base service ---

export const nodeInfoJson = ({ defaultNodeInfo: n, applicationVersion: a }: GetNodeInfoResponse) => ({
  default_node_info: n
    ? {
        protocol_version: {
          p2p: int64(n.protocolVersion?.p2p),
          block: int64(n.protocolVersion?.block),
          app: int64(n.protocolVersion?.app),
        },
        default_node_id: n.defaultNodeId,
        listen_addr: n.listenAddr,
        network: n.network,
        version: n.version,
        channels: bytes(n.channels),
        moniker: n.moniker,
        other: { tx_index: n.other?.txIndex ?? '', rpc_address: n.other?.rpcAddress ?? '' },
      }
    : null,
  application_version: a
    ? {
        name: a.name,
        app_name: a.appName,
        version: a.version,
        git_commit: a.gitCommit,
        build_tags: a.buildTags,
        go_version: a.goVersion,
        build_deps: a.buildDeps.map((d) => ({ path: d.path, version: d.version, sum: d.sum })),
        cosmos_sdk_version: a.cosmosSdkVersion,
      }
    : null,
});

// --- auth ---

/**
 * An account as `GET /cosmos/auth/v1beta1/accounts/{address}` prints it: an Any with
 * "@type". A BaseAccount has `address`, `pub_key` (an Any, or null before its first
 * transaction), `account_number` and `sequence`; a ModuleAccount nests one in
 * `base_account` with `name` and `permissions`. Other account types keep `value` in base64.
 */
export function accountJson(account: Any): Record<string, unknown> {
  if (account.typeUrl === ModuleAccount.typeUrl) {
    const m = ModuleAccount.decode(account.value);
    return {
      '@type': account.typeUrl,
      base_account: m.baseAccount ? messageJson(BaseAccount.fromPartial(m.baseAccount)) : null,
      name: m.name,
      permissions: [...m.permissions],
    };
  }
  return anyJson(account);
}
