// Turns a block's CW20 events into balance movements (docs/indexing.md "CW20 balances"): every
// contract's cw20-base `wasm` events (transfer, send, mint, burn, transfer_from, send_from,
// burn_from), and the CW20s the launchpad and the AMM create, with the contract that gets
// their supply at instantiation (which no event shows).
import {
  AMM_TOKEN_CREATED,
  CONTRACT_ADDRESS_ATTRIBUTE,
  CW20_EVENTS,
  LAUNCHPAD_EVENTS,
} from '../chain/contract-events.ts';
import type { ContractAddresses } from '../domain/events.ts';
import type { RawEvent, RawTx } from './decode-events.ts';

/** One holder's balance change of one token (negative: tokens left the holder). */
export interface Cw20Movement {
  token: string;
  holder: string;
  amount: bigint;
}

/** A CW20 created in this block by the launchpad or the AMM, which holds its whole supply from then. */
export interface Cw20Origin {
  token: string;
  initialHolder: string;
}

export interface Cw20Changes {
  /** Summed per (token, holder); zero sums left out. */
  movements: Cw20Movement[];
  origins: Cw20Origin[];
  /** Contracts with a balance event this decoder could not read (an action it knows, attributes it does not). */
  unreadable: string[];
  /** Contracts minted or burnt in this block: their total supply moved. */
  supplyChanged: string[];
}

const UINT = /^\d+$/;
type Cw20Action = keyof typeof CW20_EVENTS.actions;
const isCw20Action = (action: string | undefined): action is Cw20Action =>
  action !== undefined && Object.hasOwn(CW20_EVENTS.actions, action);

/** The first value of each attribute key (as the contract events' reader does). */
function attributesOf(event: RawEvent): Map<string, string> {
  const map = new Map<string, string>();
  for (const a of event.attributes) if (!map.has(a.key)) map.set(a.key, a.value);
  return map;
}

/** The first value of `key` (as attributesOf reads it), without the map: most `wasm` events are not a CW20's. */
function firstValue(event: RawEvent, key: string): string | undefined {
  for (const a of event.attributes) if (a.key === key) return a.value;
  return undefined;
}

/**
 * The balance changes of one cw20-base event, or undefined when its attributes break the
 * shape of its action (a missing holder, an amount that is not an unsigned integer).
 */
function movementsOf(token: string, action: Cw20Action, a: Map<string, string>): Cw20Movement[] | undefined {
  const amount = a.get(CW20_EVENTS.amount);
  if (amount === undefined || !UINT.test(amount)) return undefined;
  const value = BigInt(amount);
  const names: { from?: string; to?: string } = CW20_EVENTS.actions[action];
  const out: Cw20Movement[] = [];
  if (names.from) {
    const from = a.get(names.from) || a.get(CW20_EVENTS.ownerFallback);
    if (!from) return undefined;
    out.push({ token, holder: from, amount: -value });
  }
  if (names.to) {
    const to = a.get(names.to);
    if (!to) return undefined;
    out.push({ token, holder: to, amount: value });
  }
  return out;
}

/** Decodes the CW20 events of one block's successful transactions. */
export function decodeCw20(txs: readonly RawTx[], contracts: ContractAddresses): Cw20Changes {
  const sums = new Map<string, Cw20Movement>();
  const origins: Cw20Origin[] = [];
  const unreadable = new Set<string>();
  const supplyChanged = new Set<string>();
  for (const tx of txs) {
    if (tx.code !== 0) continue; // a failed tx moved nothing
    for (const event of tx.events) {
      if (event.type === LAUNCHPAD_EVENTS.tokenCreated.type) {
        const a = attributesOf(event);
        const token = a.get(LAUNCHPAD_EVENTS.tokenCreated.attributes.token);
        if (a.get(CONTRACT_ADDRESS_ATTRIBUTE) === contracts.launchpad && token)
          origins.push({ token, initialHolder: contracts.launchpad });
        continue;
      }
      if (event.type !== CW20_EVENTS.type) continue;
      const contract = firstValue(event, CONTRACT_ADDRESS_ATTRIBUTE);
      const action = firstValue(event, CW20_EVENTS.actionAttribute);
      if (!contract) continue;
      if (contract === contracts.amm && action === AMM_TOKEN_CREATED.action) {
        const token = firstValue(event, AMM_TOKEN_CREATED.token);
        if (token) origins.push({ token, initialHolder: contracts.amm });
        continue;
      }
      if (!isCw20Action(action)) continue;
      const a = attributesOf(event);
      // a side with no counterpart: supply created or destroyed
      const { from, to } = CW20_EVENTS.actions[action] as { from?: string; to?: string };
      if (!from !== !to) supplyChanged.add(contract);
      const moves = movementsOf(contract, action, a);
      if (!moves) {
        unreadable.add(contract);
        continue;
      }
      for (const m of moves) {
        const key = `${m.token} ${m.holder}`;
        const sum = sums.get(key);
        if (sum) sum.amount += m.amount;
        else sums.set(key, { ...m });
      }
    }
  }
  return {
    movements: [...sums.values()].filter((m) => m.amount !== 0n),
    origins,
    unreadable: [...unreadable],
    supplyChanged: [...supplyChanged],
  };
}
