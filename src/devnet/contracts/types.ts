// The contract model shared by the devnet's native contracts: a contract mutates its own
// journaled state, then returns attributes, custom events and messages the host dispatches
// afterwards, in order, exactly as a CosmWasm contract's Response is processed by wasmd.
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { LedgerDraft } from '../ledger/ledger.ts';
import type { Journal } from '../state/journal.ts';

export interface ContractEnv {
  height: number;
  timeNs: bigint;
  /** The address of the contract being called. */
  contract: string;
}

export interface MessageInfo {
  sender: string;
  funds: readonly Coin[];
}

export type CosmosMsg =
  | { kind: 'bank_send'; to: string; amount: Coin[] }
  | { kind: 'execute'; contract: string; msg: unknown; funds: Coin[] }
  | { kind: 'instantiate'; codeId: number; msg: unknown; funds: Coin[]; label: string; admin: string | null };

export interface ContractEvent {
  /** Without the `wasm-` prefix the host adds. */
  type: string;
  attributes: [string, string][];
  /** What the devnet's ledger records for this event (trades, launches, graduations). */
  ledger?: LedgerDraft;
}

export interface ContractResponse {
  attributes: [string, string][];
  events: ContractEvent[];
  messages: CosmosMsg[];
  /** Ledger records not tied to an emitted event (a token that starts on the AMM). */
  records?: LedgerDraft[];
  /** Returned as the message's `data` (JSON-encoded). */
  data?: unknown;
}

/** What a contract may ask the chain while it runs. */
export interface ContractHost {
  journal: Journal;
  /** The address the next instantiated contract will get (wasmd's addresses are predictable). */
  nextContractAddress(codeId: number): string;
  querySmart(contract: string, msg: unknown): unknown;
}

export interface ContractInstance {
  execute(env: ContractEnv, info: MessageInfo, msg: unknown): ContractResponse;
  query(msg: unknown): unknown;
}

export interface ContractCode {
  codeId: number;
  instantiate(
    host: ContractHost,
    env: ContractEnv,
    info: MessageInfo,
    msg: unknown,
  ): { instance: ContractInstance; response: ContractResponse };
}

export const emptyResponse = (): ContractResponse => ({ attributes: [], events: [], messages: [] });
