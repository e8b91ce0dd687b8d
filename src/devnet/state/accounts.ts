// The auth module's accounts: number, sequence and public key (set by the first signed tx).
import type { Journal } from './journal.ts';

export interface Account {
  readonly address: string;
  readonly accountNumber: bigint;
  sequence: bigint;
  /** Compressed secp256k1 public key, known once the account has signed a transaction. */
  pubkey: Uint8Array | null;
}

export interface Accounts {
  get(address: string): Account | undefined;
  /** Returns the account, creating it with the next account number if it does not exist yet. */
  ensure(address: string): Account;
  incrementSequence(account: Account): void;
  setPubkey(account: Account, pubkey: Uint8Array): void;
  all(): Iterable<Account>;
}

export function createAccounts(journal: Journal): Accounts {
  const byAddress = new Map<string, Account>();
  let nextNumber = 0n;
  return {
    get: (address) => byAddress.get(address),
    ensure(address) {
      const existing = byAddress.get(address);
      if (existing) return existing;
      const account: Account = { address, accountNumber: nextNumber++, sequence: 0n, pubkey: null };
      byAddress.set(address, account);
      journal.record(() => {
        byAddress.delete(address);
        nextNumber--;
      });
      return account;
    },
    incrementSequence(account) {
      account.sequence++;
      journal.record(() => void account.sequence--);
    },
    setPubkey(account, pubkey) {
      const before = account.pubkey;
      account.pubkey = pubkey;
      journal.record(() => {
        account.pubkey = before;
      });
    },
    all: () => byAddress.values(),
  };
}
