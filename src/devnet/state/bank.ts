// The bank module: balances per address and denom, total supply, and the coin movements
// (send, burn, mint) with the events a Cosmos SDK v0.50 chain emits for them.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { type ChainEvent, coinsToString, event } from '../core/events.ts';
import { SdkErrors } from '../errors.ts';
import type { Journal } from './journal.ts';

export interface Bank {
  balance(address: string, denom: string): bigint;
  /** Balances sorted by denom, zero balances left out (as the SDK stores them). */
  balances(address: string): Coin[];
  supply(denom: string): bigint;
  allSupply(): Coin[];
  /** Moves coins; throws `insufficient funds` (code 5) and leaves nothing changed when short. */
  send(from: string, to: string, coins: readonly Coin[]): ChainEvent[];
  burn(from: string, coins: readonly Coin[]): ChainEvent[];
  mint(to: string, coins: readonly Coin[]): ChainEvent[];
  /** Genesis only: sets a balance and adds it to the supply without events. */
  credit(address: string, denom: string, amount: bigint): void;
  holders(): Iterable<string>;
}

export function createBank(journal: Journal, onNewAddress: (address: string) => void): Bank {
  const balances = new Map<string, Map<string, bigint>>();
  const supply = new Map<string, bigint>();

  const setBalance = (address: string, denom: string, amount: bigint) => {
    let byDenom = balances.get(address);
    if (!byDenom) {
      byDenom = new Map();
      balances.set(address, byDenom);
    }
    const before = byDenom.get(denom) ?? 0n;
    if (amount === 0n) byDenom.delete(denom);
    else byDenom.set(denom, amount);
    const map = byDenom;
    journal.record(() => (before === 0n ? map.delete(denom) : map.set(denom, before)));
  };
  const setSupply = (denom: string, amount: bigint) => {
    const before = supply.get(denom) ?? 0n;
    supply.set(denom, amount);
    journal.record(() => supply.set(denom, before));
  };
  const balance = (address: string, denom: string) => balances.get(address)?.get(denom) ?? 0n;

  const debit = (address: string, coins: readonly Coin[]) => {
    for (const coin of coins) {
      const have = balance(address, coin.denom);
      if (have < BigInt(coin.amount)) {
        throw SdkErrors.insufficientFunds(
          `spendable balance ${have}${coin.denom} is smaller than ${coin.amount}${coin.denom}`,
        );
      }
    }
    for (const coin of coins) setBalance(address, coin.denom, balance(address, coin.denom) - BigInt(coin.amount));
  };
  const add = (address: string, coins: readonly Coin[]) => {
    onNewAddress(address);
    for (const coin of coins) setBalance(address, coin.denom, balance(address, coin.denom) + BigInt(coin.amount));
  };

  return {
    balance,
    balances(address) {
      const byDenom = balances.get(address);
      if (!byDenom) return [];
      return [...byDenom.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([denom, amount]) => ({ denom, amount: amount.toString() }));
    },
    supply: (denom) => supply.get(denom) ?? 0n,
    allSupply: () =>
      [...supply.entries()]
        .filter(([, amount]) => amount > 0n)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([denom, amount]) => ({ denom, amount: amount.toString() })),
    send(from, to, coins) {
      debit(from, coins);
      add(to, coins);
      const amount = coinsToString(coins);
      return [
        event('coin_spent', ['spender', from], ['amount', amount]),
        event('coin_received', ['receiver', to], ['amount', amount]),
        event('transfer', ['recipient', to], ['sender', from], ['amount', amount]),
      ];
    },
    burn(from, coins) {
      debit(from, coins);
      for (const coin of coins) setSupply(coin.denom, (supply.get(coin.denom) ?? 0n) - BigInt(coin.amount));
      const amount = coinsToString(coins);
      return [
        event('coin_spent', ['spender', from], ['amount', amount]),
        event('burn', ['burner', from], ['amount', amount]),
      ];
    },
    mint(to, coins) {
      add(to, coins);
      for (const coin of coins) setSupply(coin.denom, (supply.get(coin.denom) ?? 0n) + BigInt(coin.amount));
      const amount = coinsToString(coins);
      return [
        event('coinbase', ['minter', to], ['amount', amount]),
        event('coin_received', ['receiver', to], ['amount', amount]),
      ];
    },
    credit(address, denom, amount) {
      setBalance(address, denom, balance(address, denom) + amount);
      supply.set(denom, (supply.get(denom) ?? 0n) + amount);
    },
    holders: () => balances.keys(),
  };
}
