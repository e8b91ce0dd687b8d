// Turns the launchpad's and AMM's contract events of a block into domain events:
// token launches, trades (counted as docs/indexing.md "Numbers" says) and graduations.
import {
  AMM_EVENTS,
  CONTRACT_ADDRESS_ATTRIBUTE,
  LAUNCHPAD_EVENTS,
  LAUNCHPAD_ORACLE_UPDATE,
  SWAP_DIRECTIONS,
} from '../chain/contract-events.ts';
import { messageIndexes } from '../chain/node-events.ts';
import type { ChainEvent } from '../chain/stored-events.ts';
import type {
  ContractAddresses,
  DomainEvent,
  EventPosition,
  Trade,
  TradeAction,
  TradeDirection,
} from '../domain/events.ts';
import { ServiceError } from '../internal/errors.ts';

/** An event as the node reports it (the shape the stored events keep, too). */
export type RawEvent = ChainEvent;

export interface RawTx {
  hash: string;
  index: number;
  code: number;
  events: readonly RawEvent[];
}

/** A contract event whose attributes break the documented shape. */
export class MalformedEventError extends ServiceError {
  override name = 'MalformedEventError';
}

const UINT = /^\d+$/;

/**
 * An event's attributes by key (the first of a repeated key). A class, not closures made per
 * event: a full block reads thousands of events.
 */
class Reader {
  #map: Map<string, string> | undefined;
  constructor(readonly event: RawEvent) {}

  #value(key: string): string | undefined {
    if (!this.#map) {
      this.#map = new Map();
      for (const a of this.event.attributes) if (!this.#map.has(a.key)) this.#map.set(a.key, a.value);
    }
    return this.#map.get(key);
  }

  text(key: string): string {
    const v = this.#value(key);
    if (v === undefined) throw new MalformedEventError(`${this.event.type} has no ${key} attribute`);
    return v;
  }

  optionalText(key: string): string {
    return this.#value(key) ?? '';
  }

  amount(key: string): bigint {
    const v = this.text(key);
    if (!UINT.test(v))
      throw new MalformedEventError(`${this.event.type}.${key} is not an unsigned integer: ${JSON.stringify(v)}`);
    return BigInt(v);
  }

  /** The contract that emitted it: its first `_contract_address`, found without reading the others. */
  contract(): string | undefined {
    for (const a of this.event.attributes) if (a.key === CONTRACT_ADDRESS_ATTRIBUTE) return a.value;
    return undefined;
  }
}

/** price = volume_unative × 10^6 ÷ volume_token (integer division); 0 when no token moved. */
export function tradePrice(volumeUnative: bigint, volumeToken: bigint): bigint {
  return volumeToken === 0n ? 0n : (volumeUnative * 1_000_000n) / volumeToken;
}

interface TradeAmounts {
  source: Trade['source'];
  action: TradeAction;
  direction: TradeDirection;
  token: string;
  trader: string;
  input: bigint;
  output: bigint;
  fee: bigint;
  reserves: bigint;
}

function toTrade(at: EventPosition, a: TradeAmounts): Trade {
  // docs/indexing.md "Numbers": the fee comes out of what the trader sends on native→token,
  // and out of what the curve or pool pays on token→native.
  const nativeIn = a.direction === 'native_to_token';
  if (nativeIn && a.fee > a.input) throw new MalformedEventError(`fee ${a.fee} exceeds the native input ${a.input}`);
  const volumeUnative = nativeIn ? a.input - a.fee : a.output + a.fee;
  const volumeToken = nativeIn ? a.output : a.input;
  return {
    time: at.time,
    blockHeight: at.blockHeight,
    txIndex: at.txIndex,
    eventIndex: at.eventIndex,
    msgIndex: at.msgIndex,
    txHash: at.txHash,
    source: a.source,
    action: a.action,
    direction: a.direction,
    tokenAddress: a.token,
    priceUnative: tradePrice(volumeUnative, volumeToken),
    volumeUnative,
    volumeToken,
    feeUnative: a.fee,
    trader: a.trader,
    inputAmount: a.input,
    outputAmount: a.output,
    nativeReserves: a.reserves,
  };
}

function decodeLaunchpadEvent(type: string, r: Reader, at: EventPosition): DomainEvent | undefined {
  const { tokenCreated, buy, buyAndGraduate, sell, graduate } = LAUNCHPAD_EVENTS;
  switch (type) {
    case tokenCreated.type: {
      const k = tokenCreated.attributes;
      return {
        kind: 'token_launch',
        at,
        token: r.text(k.token),
        creator: r.text(k.creator),
        name: r.optionalText(k.name),
        symbol: r.optionalText(k.symbol),
        image: r.optionalText(k.image),
        description: r.optionalText(k.description),
        initialReserves: r.amount(k.initialReserves),
      };
    }
    case buy.type:
    case buyAndGraduate.type: {
      const k = buy.attributes;
      const action = type === buy.type ? 'buy' : 'buy_and_graduate';
      return {
        kind: 'trade',
        at,
        trade: toTrade(at, {
          source: 'launchpad',
          action,
          direction: 'native_to_token',
          token: r.text(k.token),
          trader: r.text(k.trader),
          input: r.amount(k.nativeInput),
          output: r.amount(k.tokensOut),
          fee: r.amount(k.fee),
          reserves: r.amount(k.nativeReserves),
        }),
      };
    }
    case sell.type: {
      const k = sell.attributes;
      return {
        kind: 'trade',
        at,
        trade: toTrade(at, {
          source: 'launchpad',
          action: 'sell',
          direction: 'token_to_native',
          token: r.text(k.token),
          trader: r.text(k.trader),
          input: r.amount(k.tokensInput),
          output: r.amount(k.nativeOut),
          fee: r.amount(k.fee),
          reserves: r.amount(k.nativeReserves),
        }),
      };
    }
    case graduate.type: {
      const k = graduate.attributes;
      return {
        kind: 'graduation',
        at,
        token: r.text(k.token),
        nativeForPool: r.amount(k.nativeForPool),
        tokensForPool: r.amount(k.tokensForPool),
        creator: r.text(k.creator),
      };
    }
    default:
      return undefined;
  }
}

function decodeAmmEvent(type: string, r: Reader, at: EventPosition): DomainEvent | undefined {
  if (type !== AMM_EVENTS.swap.type) return undefined;
  const k = AMM_EVENTS.swap.attributes;
  const rawDirection = r.text(k.direction);
  const direction =
    rawDirection === SWAP_DIRECTIONS.nativeToToken
      ? 'native_to_token'
      : rawDirection === SWAP_DIRECTIONS.tokenToNative
        ? 'token_to_native'
        : undefined;
  if (!direction)
    throw new MalformedEventError(
      `${type}.${k.direction} is neither ${SWAP_DIRECTIONS.nativeToToken} nor ${SWAP_DIRECTIONS.tokenToNative}: ${JSON.stringify(rawDirection)}`,
    );
  return {
    kind: 'trade',
    at,
    trade: toTrade(at, {
      source: 'amm',
      action: 'swap',
      direction,
      token: r.text(k.token),
      trader: r.text(k.trader),
      input: r.amount(k.offerAmount),
      output: r.amount(k.returnAmount),
      fee: r.amount(k.fee),
      reserves: r.amount(k.nativeReserves),
    }),
  };
}

export interface DecodeResult {
  events: DomainEvent[];
  /** Events from our contracts that could not be decoded; reported, never stored half-right. */
  malformed: { at: EventPosition; type: string; error: string }[];
  /**
   * Where the launchpad's oracle price changed (every curve's graduation threshold with it),
   * and the new price in micro-USD per display unit of the native coin (null when the event
   * does not say it as an integer).
   */
  oracleUpdates?: { at: EventPosition; nativeUsdMicro: string | null }[];
}

const oraclePrice = (v: string | undefined) => (v !== undefined && /^\d{1,30}$/.test(v) && BigInt(v) > 0n ? v : null);

/** The largest event index within a tx that a trade's place in chain order holds (16 bits of trades.seq). */
export const MAX_EVENT_INDEX = 65_535;

/** Decodes the contract events of one block's successful transactions, in chain order. */
export function decodeBlockEvents(
  block: { height: number; time: Date; txs: readonly RawTx[] },
  contracts: ContractAddresses,
): DecodeResult {
  const result: DecodeResult = { events: [], malformed: [], oracleUpdates: [] };
  for (const tx of block.txs) {
    if (tx.code !== 0) continue; // a failed tx changed no contract state
    let messages: number[] | undefined; // which message emitted each event, worked out once it matters
    for (let eventIndex = 0; eventIndex < tx.events.length; eventIndex++) {
      const event = tx.events[eventIndex]!;
      const oracle = event.type === LAUNCHPAD_ORACLE_UPDATE.type;
      if (!oracle && !event.type.startsWith('wasm-')) continue;
      const r = new Reader(event);
      const contract = r.contract();
      if (contract !== contracts.launchpad && contract !== contracts.amm) continue;
      messages ??= messageIndexes(tx.events);
      const at: EventPosition = {
        blockHeight: block.height,
        time: block.time,
        txHash: tx.hash,
        txIndex: tx.index,
        msgIndex: messages[eventIndex]!,
        eventIndex,
      };
      if (oracle) {
        if (
          contract === contracts.launchpad &&
          r.optionalText(LAUNCHPAD_ORACLE_UPDATE.actionAttribute) === LAUNCHPAD_ORACLE_UPDATE.action
        )
          result.oracleUpdates!.push({
            at,
            nativeUsdMicro: oraclePrice(r.optionalText(LAUNCHPAD_ORACLE_UPDATE.priceAttribute)),
          });
        continue;
      }
      if (eventIndex > MAX_EVENT_INDEX) {
        // its place in chain order would not fit (trades.seq, sql/0002_trades.sql): skipped and
        // logged, never a batch the database refuses again and again (an epoch block's events)
        result.malformed.push({
          at,
          type: event.type,
          error: `its event index ${eventIndex} is past ${MAX_EVENT_INDEX}`,
        });
        continue;
      }
      try {
        const decoded =
          contract === contracts.launchpad
            ? decodeLaunchpadEvent(event.type, r, at)
            : decodeAmmEvent(event.type, r, at);
        if (decoded) result.events.push(decoded);
      } catch (error) {
        if (!(error instanceof MalformedEventError)) throw error;
        result.malformed.push({ at, type: event.type, error: error.message });
      }
    }
  }
  return result;
}
