// The devnet's deterministic genesis: the funded accounts of the mnemonic, five validators
// (three bonded, one unbonding, one unbonded) with delegations, and the launchpad and AMM.
import { sha256 } from '@cosmjs/crypto';
import { toAscii } from '@cosmjs/encoding';
import { BondStatus } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import {
  GENERATOR_TRADER_COUNT,
  GENERATOR_TRADER_FIRST_INDEX,
  GENESIS_ACCOUNT_BALANCE,
  NATIVE_DENOM,
  STAKING_PARAMS,
} from '../constants.ts';
import { CODE_IDS, DEVNET_CONTRACTS } from '../contracts/addresses.ts';
import { createGasMeter } from '../core/gas.ts';
import { MODULE_ACCOUNTS, toAccountAddress, toValoperAddress } from '../state/addresses.ts';
import { type AccountKey, deriveAccountKeys, validatorKey } from '../state/keys.ts';
import type { ChainState } from './chain-state.ts';

export const USER_ACCOUNT_COUNT = 10;

export interface GenesisInfo {
  /** Accounts 0..9 of the mnemonic; account 0 administers the launchpad and the AMM. */
  users: AccountKey[];
  /** Accounts the traffic generator trades from (indexes 10..29). */
  traders: AccountKey[];
}

const VALIDATORS = [
  {
    moniker: 'Aurora',
    status: BondStatus.BOND_STATUS_BONDED,
    selfBond: 10_000_000_000_000n,
    rate: '0.050000000000000000',
  },
  {
    moniker: 'Borealis',
    status: BondStatus.BOND_STATUS_BONDED,
    selfBond: 8_000_000_000_000n,
    rate: '0.100000000000000000',
  },
  {
    moniker: 'Cygnus',
    status: BondStatus.BOND_STATUS_BONDED,
    selfBond: 6_000_000_000_000n,
    rate: '0.080000000000000000',
  },
  {
    moniker: 'Draco',
    status: BondStatus.BOND_STATUS_UNBONDING,
    selfBond: 1_000_000_000_000n,
    rate: '0.200000000000000000',
  },
  {
    moniker: 'Eridanus',
    status: BondStatus.BOND_STATUS_UNBONDED,
    selfBond: 500_000_000_000n,
    rate: '0.150000000000000000',
  },
];
const USER_DELEGATION = 1_000_000_000n;
const OPERATOR_LIQUID_BALANCE = 100_000_000n;

export async function applyGenesis(state: ChainState, mnemonic: string, genesisTimeNs: bigint): Promise<GenesisInfo> {
  const keys = await deriveAccountKeys(mnemonic, [
    ...Array.from({ length: USER_ACCOUNT_COUNT }, (_, i) => i),
    ...Array.from({ length: GENERATOR_TRADER_COUNT }, (_, i) => GENERATOR_TRADER_FIRST_INDEX + i),
  ]);
  const users = keys.slice(0, USER_ACCOUNT_COUNT);
  const traders = keys.slice(USER_ACCOUNT_COUNT);
  for (const key of keys) {
    state.accounts.ensure(key.address);
    state.bank.credit(key.address, NATIVE_DENOM, GENESIS_ACCOUNT_BALANCE);
  }
  for (const module of Object.values(MODULE_ACCOUNTS)) state.accounts.ensure(module);

  const unbondingCompletes = genesisTimeNs / 1_000_000_000n + STAKING_PARAMS.unbondingTimeSeconds;
  for (const [i, spec] of VALIDATORS.entries()) {
    const operatorBytes = sha256(toAscii(`native-devnet validator operator ${i}`)).slice(0, 20);
    const accountAddress = toAccountAddress(operatorBytes);
    const consensus = await validatorKey(i);
    state.accounts.ensure(accountAddress);
    state.bank.credit(accountAddress, NATIVE_DENOM, OPERATOR_LIQUID_BALANCE);
    const operatorAddress = toValoperAddress(operatorBytes);
    state.staking.addValidator({
      operatorAddress,
      accountAddress,
      consensusPubkey: consensus.pubkey,
      consensusAddress: consensus.address,
      status: spec.status,
      tokens: 0n,
      shares: 0n,
      moniker: spec.moniker,
      website: `https://${spec.moniker.toLowerCase()}.devnet.invalid`,
      details: `Devnet validator ${spec.moniker}`,
      commissionRate: spec.rate,
      commissionMaxRate: '0.200000000000000000',
      commissionMaxChangeRate: '0.010000000000000000',
      minSelfDelegation: 1n,
      unbondingHeight: 0n,
      unbondingTimeSeconds: spec.status === BondStatus.BOND_STATUS_UNBONDING ? unbondingCompletes : 0n,
    });
    state.staking.addGenesisDelegation(accountAddress, operatorAddress, spec.selfBond);
  }
  const validators = state.staking.validators();
  for (const [i, user] of users.entries()) {
    state.staking.addGenesisDelegation(
      user.address,
      validators[i % validators.length]!.operatorAddress,
      USER_DELEGATION,
    );
  }

  const admin = users[0]!.address;
  const scope = { height: 0, timeNs: genesisTimeNs, gas: createGasMeter(0n), drafts: [] };
  const launchpad = state.wasm.instantiate(
    scope,
    admin,
    CODE_IDS.launchpad,
    { admin, amm: DEVNET_CONTRACTS.amm },
    [],
    'launchpad',
    admin,
  );
  const amm = state.wasm.instantiate(
    scope,
    admin,
    CODE_IDS.amm,
    { admin, launchpad: DEVNET_CONTRACTS.launchpad },
    [],
    'amm',
    admin,
  );
  if (launchpad.address !== DEVNET_CONTRACTS.launchpad || amm.address !== DEVNET_CONTRACTS.amm) {
    throw new Error('genesis contract addresses differ from DEVNET_CONTRACTS');
  }
  for (const contract of [launchpad.address, amm.address]) state.accounts.ensure(contract);
  state.journal.clear();
  return { users, traders };
}

/** The `app_state` of the genesis document: accounts, balances, supply, validators and contracts. */
export function genesisAppState(state: ChainState) {
  return {
    auth: {
      accounts: [...state.accounts.all()].map((a) => ({
        '@type': '/cosmos.auth.v1beta1.BaseAccount',
        address: a.address,
        account_number: a.accountNumber.toString(),
        sequence: '0',
      })),
    },
    bank: {
      balances: [...state.bank.holders()].map((address) => ({ address, coins: state.bank.balances(address) })),
      supply: state.bank.allSupply(),
    },
    staking: {
      params: {
        unbonding_time: `${STAKING_PARAMS.unbondingTimeSeconds}s`,
        max_validators: STAKING_PARAMS.maxValidators,
        max_entries: STAKING_PARAMS.maxEntries,
        bond_denom: STAKING_PARAMS.bondDenom,
      },
      validators: state.staking.validators().map((v) => ({
        operator_address: v.operatorAddress,
        status: BondStatus[v.status],
        tokens: v.tokens.toString(),
        moniker: v.moniker,
      })),
    },
    wasm: {
      contracts: state.wasm
        .contracts()
        .map((c) => ({ contract_address: c.address, code_id: String(c.codeId), label: c.label, admin: c.admin ?? '' })),
    },
  };
}
