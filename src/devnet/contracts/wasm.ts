// The wasm module host: stores contract instances, runs execute/instantiate/query, moves
// attached funds, emits wasmd's events (execute, instantiate, wasm, wasm-*) and dispatches
// the messages a contract returns, depth first and in order.
import { toUtf8 } from '@cosmjs/encoding';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { type ChainEvent, event } from '../core/events.ts';
import { GAS_COSTS, type GasMeter } from '../core/gas.ts';
import { type ChainError, ContractError, WasmErrors } from '../errors.ts';
import type { LedgerDraft } from '../ledger/ledger.ts';
import { contractAddress } from '../state/addresses.ts';
import type { Bank } from '../state/bank.ts';
import type { Journal } from '../state/journal.ts';
import type { ContractCode, ContractInstance, ContractResponse, CosmosMsg } from './types.ts';

/** wasmd's prefix of a contract's custom event type: the contract's `buy` is the chain's `wasm-buy`. */
export const CUSTOM_EVENT_PREFIX = 'wasm-';
/** The attribute wasmd puts first in every contract event: the emitting contract's address. */
export const CONTRACT_ADDRESS_ATTRIBUTE = '_contract_address';

export interface ContractRecord {
  address: string;
  codeId: number;
  creator: string;
  admin: string | null;
  label: string;
  instance: ContractInstance;
}

/** Where a contract call runs: the block, the gas meter and the ledger records it produced. */
export interface CallScope {
  height: number;
  timeNs: bigint;
  gas: GasMeter;
  drafts: { draft: LedgerDraft; event: ChainEvent | null }[];
}

export interface Wasm {
  instantiate(
    scope: CallScope,
    sender: string,
    codeId: number,
    msg: unknown,
    funds: readonly Coin[],
    label: string,
    admin: string | null,
  ): { address: string; events: ChainEvent[]; data: unknown };
  execute(
    scope: CallScope,
    sender: string,
    contract: string,
    msg: unknown,
    funds: readonly Coin[],
  ): { events: ChainEvent[]; data: unknown };
  /** Smart query; throws a wasm ChainError for an unknown contract or a contract error. */
  querySmart(contract: string, msg: unknown): unknown;
  contract(address: string): ContractRecord | undefined;
  contracts(): ContractRecord[];
}

export function createWasm(journal: Journal, bank: Bank, codes: readonly ContractCode[]): Wasm {
  const byAddress = new Map<string, ContractRecord>();
  const order: ContractRecord[] = [];
  let nextInstanceId = 1;
  const codeById = new Map(codes.map((c) => [c.codeId, c]));

  const host = {
    journal,
    nextContractAddress: (codeId: number) => contractAddress(codeId, nextInstanceId),
    querySmart: (contract: string, msg: unknown) => querySmart(contract, msg),
  };

  function querySmart(contract: string, msg: unknown): unknown {
    const record = byAddress.get(contract);
    if (!record) throw WasmErrors.noSuchContract(`address ${contract}`);
    try {
      return record.instance.query(msg);
    } catch (error) {
      if (error instanceof ContractError) throw WasmErrors.queryFailed(`Generic error: ${error.message}`);
      throw error;
    }
  }

  function moveFunds(sender: string, contract: string, funds: readonly Coin[]): ChainEvent[] {
    const nonZero = funds.filter((c) => BigInt(c.amount) > 0n);
    return nonZero.length ? bank.send(sender, contract, nonZero) : [];
  }

  function emitResponse(scope: CallScope, contract: string, response: ContractResponse, out: ChainEvent[]) {
    if (response.attributes.length)
      out.push(event('wasm', [CONTRACT_ADDRESS_ATTRIBUTE, contract], ...response.attributes));
    for (const custom of response.events) {
      const emitted = event(
        `${CUSTOM_EVENT_PREFIX}${custom.type}`,
        [CONTRACT_ADDRESS_ATTRIBUTE, contract],
        ...custom.attributes,
      );
      out.push(emitted);
      if (custom.ledger) scope.drafts.push({ draft: custom.ledger, event: emitted });
    }
    for (const draft of response.records ?? []) scope.drafts.push({ draft, event: null });
    for (const msg of response.messages) dispatch(scope, contract, msg, out);
  }

  function dispatch(scope: CallScope, contract: string, msg: CosmosMsg, out: ChainEvent[]) {
    switch (msg.kind) {
      case 'bank_send':
        scope.gas.consume(GAS_COSTS.wasmBankSubmsg, 'wasm bank submessage');
        out.push(...bank.send(contract, msg.to, msg.amount));
        return;
      case 'execute':
        out.push(...execute(scope, contract, msg.contract, msg.msg, msg.funds).events);
        return;
      case 'instantiate':
        out.push(...instantiate(scope, contract, msg.codeId, msg.msg, msg.funds, msg.label, msg.admin).events);
        return;
    }
  }

  function instantiate(
    scope: CallScope,
    sender: string,
    codeId: number,
    msg: unknown,
    funds: readonly Coin[],
    label: string,
    admin: string | null,
  ) {
    scope.gas.consume(GAS_COSTS.wasmInstantiate + GAS_COSTS.wasmPerMsgByte * jsonSize(msg), 'wasm instantiate');
    const code = codeById.get(codeId);
    if (!code) throw WasmErrors.noSuchCode(`code id ${codeId}`);
    const address = contractAddress(codeId, nextInstanceId);
    nextInstanceId++;
    journal.record(() => void nextInstanceId--);
    const out = moveFunds(sender, address, funds);
    const env = { height: scope.height, timeNs: scope.timeNs, contract: address };
    const { instance, response } = runContract(
      () => code.instantiate(host, env, { sender, funds }, msg),
      WasmErrors.instantiateFailed,
    );
    const record: ContractRecord = { address, codeId, creator: sender, admin, label, instance };
    byAddress.set(address, record);
    order.push(record);
    journal.record(() => {
      byAddress.delete(address);
      order.pop();
    });
    out.push(event('instantiate', [CONTRACT_ADDRESS_ATTRIBUTE, address], ['code_id', String(codeId)]));
    emitResponse(scope, address, response, out);
    return { address, events: out, data: response.data };
  }

  function execute(scope: CallScope, sender: string, contract: string, msg: unknown, funds: readonly Coin[]) {
    scope.gas.consume(GAS_COSTS.wasmExecute + GAS_COSTS.wasmPerMsgByte * jsonSize(msg), 'wasm execute');
    const record = byAddress.get(contract);
    if (!record) throw WasmErrors.noSuchContract(`address ${contract}`);
    const out = moveFunds(sender, contract, funds);
    const env = { height: scope.height, timeNs: scope.timeNs, contract };
    const response = runContract(() => record.instance.execute(env, { sender, funds }, msg), WasmErrors.executeFailed);
    out.push(event('execute', [CONTRACT_ADDRESS_ATTRIBUTE, contract]));
    emitResponse(scope, contract, response, out);
    return { events: out, data: response.data };
  }

  return {
    instantiate,
    execute,
    querySmart,
    contract: (address) => byAddress.get(address),
    contracts: () => [...order],
  };
}

function runContract<T>(call: () => T, wrap: (detail: string) => ChainError): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof ContractError) throw wrap(`Generic error: ${error.message}`);
    throw error;
  }
}

const jsonSize = (msg: unknown) => toUtf8(JSON.stringify(msg)).length;
