// The staking module: validators in every bond status, delegations, and MsgDelegate's
// effect (tokens move to the bonded or not-bonded pool, shares issued one for one).
import { BondStatus } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { NATIVE_DENOM } from '../constants.ts';
import { type ChainEvent, event } from '../core/events.ts';
import { SdkErrors } from '../errors.ts';
import { MODULE_ACCOUNTS } from './addresses.ts';
import type { Bank } from './bank.ts';
import type { Journal } from './journal.ts';

export interface ValidatorRecord {
  operatorAddress: string;
  /** The operator's own account (self-delegator), same bytes as the valoper address. */
  accountAddress: string;
  consensusPubkey: Uint8Array;
  /** First 20 bytes of sha256(consensus pubkey): CometBFT's validator address. */
  consensusAddress: Uint8Array;
  status: BondStatus;
  tokens: bigint;
  /** Shares in base units; rendered as an 18-decimal Dec. Shares equal tokens here (no slashing). */
  shares: bigint;
  moniker: string;
  website: string;
  details: string;
  commissionRate: string;
  commissionMaxRate: string;
  commissionMaxChangeRate: string;
  minSelfDelegation: bigint;
  unbondingHeight: bigint;
  unbondingTimeSeconds: bigint;
}

export interface Delegation {
  delegator: string;
  validator: string;
  shares: bigint;
}

export interface Staking {
  validators(): ValidatorRecord[];
  validator(operatorAddress: string): ValidatorRecord | undefined;
  delegationsOf(delegator: string): Delegation[];
  delegationsTo(validator: string): Delegation[];
  delegation(delegator: string, validator: string): Delegation | undefined;
  bondedValidators(): ValidatorRecord[];
  delegate(delegator: string, validator: string, amount: bigint): ChainEvent[];
  /** Genesis only. */
  addValidator(record: ValidatorRecord): void;
  addGenesisDelegation(delegator: string, validator: string, amount: bigint): void;
}

const poolFor = (status: BondStatus) =>
  status === BondStatus.BOND_STATUS_BONDED ? MODULE_ACCOUNTS.bondedPool : MODULE_ACCOUNTS.notBondedPool;

export function createStaking(journal: Journal, bank: Bank): Staking {
  const validators = new Map<string, ValidatorRecord>();
  const delegations = new Map<string, Delegation>();
  const keyOf = (delegator: string, validator: string) => `${delegator}/${validator}`;

  const bond = (delegator: string, validator: ValidatorRecord, amount: bigint) => {
    const key = keyOf(delegator, validator.operatorAddress);
    const existing = delegations.get(key);
    if (existing) {
      existing.shares += amount;
      journal.record(() => {
        existing.shares -= amount;
      });
    } else {
      delegations.set(key, { delegator, validator: validator.operatorAddress, shares: amount });
      journal.record(() => void delegations.delete(key));
    }
    validator.tokens += amount;
    validator.shares += amount;
    journal.record(() => {
      validator.tokens -= amount;
      validator.shares -= amount;
    });
  };

  return {
    validators: () => [...validators.values()],
    validator: (address) => validators.get(address),
    delegationsOf: (delegator) => [...delegations.values()].filter((d) => d.delegator === delegator),
    delegationsTo: (validator) => [...delegations.values()].filter((d) => d.validator === validator),
    delegation: (delegator, validator) => delegations.get(keyOf(delegator, validator)),
    bondedValidators: () =>
      [...validators.values()]
        .filter((v) => v.status === BondStatus.BOND_STATUS_BONDED)
        .sort((a, b) => (b.tokens > a.tokens ? 1 : b.tokens < a.tokens ? -1 : 0)),
    delegate(delegator, operatorAddress, amount) {
      const validator = validators.get(operatorAddress);
      if (!validator) throw SdkErrors.invalidRequest(`validator does not exist`);
      if (amount <= 0n) throw SdkErrors.invalidRequest('invalid delegation amount');
      const coins = [{ denom: NATIVE_DENOM, amount: amount.toString() }];
      const moved = bank.send(delegator, poolFor(validator.status), coins);
      bond(delegator, validator, amount);
      return [
        moved[0]!,
        moved[1]!,
        event(
          'delegate',
          ['validator', operatorAddress],
          ['delegator', delegator],
          ['amount', `${amount}${NATIVE_DENOM}`],
          ['new_shares', `${amount}.000000000000000000`],
        ),
      ];
    },
    addValidator(record) {
      validators.set(record.operatorAddress, record);
    },
    addGenesisDelegation(delegator, operatorAddress, amount) {
      const validator = validators.get(operatorAddress)!;
      bank.credit(poolFor(validator.status), NATIVE_DENOM, amount);
      bond(delegator, validator, amount);
    },
  };
}
