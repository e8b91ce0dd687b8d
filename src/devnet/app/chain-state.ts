// All application state of the devnet in one object: the journal, auth accounts, bank,
// staking and the wasm contracts. Block execution and queries both read it.
import { ammCode } from '../contracts/amm.ts';
import { cw20Code } from '../contracts/cw20.ts';
import { launchpadCode } from '../contracts/launchpad.ts';
import { createWasm, type Wasm } from '../contracts/wasm.ts';
import { type Accounts, createAccounts } from '../state/accounts.ts';
import { type Bank, createBank } from '../state/bank.ts';
import { createJournal, type Journal } from '../state/journal.ts';
import { createStaking, type Staking } from '../state/staking.ts';

export interface ChainState {
  journal: Journal;
  accounts: Accounts;
  bank: Bank;
  staking: Staking;
  wasm: Wasm;
}

export function createChainState(): ChainState {
  const journal = createJournal();
  const accounts = createAccounts(journal);
  // Like the SDK's bank keeper, receiving coins creates the receiver's account.
  const bank = createBank(journal, (address) => void accounts.ensure(address));
  const staking = createStaking(journal, bank);
  const wasm = createWasm(journal, bank, [cw20Code, launchpadCode, ammCode]);
  return { journal, accounts, bank, staking, wasm };
}
