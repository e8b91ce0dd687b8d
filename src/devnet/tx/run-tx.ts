// Runs transactions against the chain state the way baseapp does: CheckTx for mempool
// admission, DeliverTx inside a block (ante, then messages; a failing message reverts the
// messages but keeps the fee and sequence), Simulate (everything reverted afterwards), and
// the contract calls a block makes outside any tx in its BeginBlock or EndBlock. What the
// SDK version adds to events and logs follows the protocol (core/protocol.ts).
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { ChainState } from '../app/chain-state.ts';
import type { CallScope } from '../contracts/wasm.ts';
import { type ChainEvent, messageEvent, messageLogs, withBlockMode, withMsgIndex } from '../core/events.ts';
import { createGasMeter } from '../core/gas.ts';
import type { Protocol } from '../core/protocol.ts';
import { asChainError, type ChainError } from '../errors.ts';
import type { LedgerDraft, LedgerWriter } from '../ledger/ledger.ts';
import { type AnteMode, type PendingState, runAnte } from './ante.ts';
import type { BlockCall } from './block-call.ts';
import { type DecodedTx, decodeTx, txHash } from './decode.ts';
import { executeMessage, moduleOf } from './messages.ts';

export interface TxResult {
  code: number;
  codespace: string;
  log: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: ChainEvent[];
  /** Protobuf TxMsgData with the messages' responses (empty on failure). */
  data: Uint8Array;
}

export interface BlockInfo {
  height: number;
  timeNs: bigint;
  /** The block time as CometBFT prints it (for the ledger). */
  time: string;
}

export interface SimulationResult {
  gasUsed: bigint;
  events: ChainEvent[];
  msgResponses: Any[];
  /** The log a successful delivery would carry (SDK 0.45/0.47 message logs). */
  log: string;
}

/** A block call's outcome: its events (with `mode` where the SDK adds it) and ledger records, or why it failed. */
export interface BlockCallResult {
  events: ChainEvent[];
  drafts: { draft: LedgerDraft; event: ChainEvent | null }[];
  error?: string;
}

export interface TxRunner {
  checkTx(bytes: Uint8Array): TxResult;
  deliverTx(bytes: Uint8Array, block: BlockInfo, txIndex: number, mode: 'deliver' | 'trusted', hash?: string): TxResult;
  /** Throws the ChainError the transaction would fail with. */
  simulate(bytes: Uint8Array): SimulationResult;
  /**
   * A contract execute outside any tx (a cron module, governance): funds move and state
   * changes as a tx's would, with unlimited gas; a failure reverts the call and reports why.
   * The caller records the ledger drafts once it knows where the events stand in the block.
   */
  runBlockCall(call: BlockCall, block: BlockInfo): BlockCallResult;
  /** After a block: the mempool is empty, so CheckTx's view equals the committed state again. */
  resetPending(): void;
}

export function createTxRunner(chainId: string, state: ChainState, ledger: LedgerWriter, protocol: Protocol): TxRunner {
  const pendingSequences = new Map<string, bigint>();
  const pendingFees = new Map<string, bigint>();
  const pending: PendingState = {
    sequence: (address, committed) => pendingSequences.get(address) ?? committed,
    feesOwed: (address) => pendingFees.get(address) ?? 0n,
    admit(address, fee) {
      pendingSequences.set(address, (pendingSequences.get(address) ?? state.accounts.get(address)!.sequence) + 1n);
      pendingFees.set(address, (pendingFees.get(address) ?? 0n) + fee);
    },
  };
  const anteContext = { chainId, accounts: state.accounts, bank: state.bank, pending };

  const failure = (
    error: ChainError,
    gasWanted: bigint,
    gasUsed: bigint,
    events: ChainEvent[] = [],
    log = error.message,
  ): TxResult => ({
    code: error.code,
    codespace: error.codespace,
    log,
    gasWanted,
    gasUsed,
    events,
    data: new Uint8Array(),
  });

  /** Runs the messages; on failure the caller reverts to its mark. */
  function runMessages(
    tx: DecodedTx,
    scope: CallScope,
    msgDrafts: number[],
  ): { events: ChainEvent[]; responses: Any[]; log: string } {
    const perMessage: ChainEvent[][] = [];
    const responses: Any[] = [];
    tx.messages.forEach((msg, msgIndex) => {
      try {
        const header = messageEvent(protocol, msg.typeUrl, tx.signer, moduleOf(msg.typeUrl));
        const result = executeMessage(state, scope, msg);
        const events = [header, ...result.events];
        perMessage.push(protocol.msgIndex ? withMsgIndex(events, msgIndex) : events);
        responses.push(result.response);
        while (msgDrafts.length < scope.drafts.length) msgDrafts.push(msgIndex);
      } catch (error) {
        const chainError = asChainError(error);
        throw Object.assign(chainError, { msgIndex });
      }
    });
    return { events: perMessage.flat(), responses, log: messageLogs(protocol, perMessage) };
  }

  /** TxMsgData: one MsgData {msg_type, data} per message in SDK 0.45, the responses as Anys from 0.46. */
  const txMsgData = (responses: Any[]) =>
    protocol.txMsgData === 'msg-data'
      ? TxMsgData.encode({
          data: responses.map((r) => ({ msgType: r.typeUrl, data: r.value })),
          msgResponses: [],
        }).finish()
      : TxMsgData.encode({ data: [], msgResponses: responses }).finish();

  /** SDK 0.45/0.47 CheckTx runs no message and logs the empty ABCIMessageLogs: `[]`. */
  const checkLog = protocol.messageLogs === 'none' ? '' : '[]';

  return {
    checkTx(bytes) {
      let gasWanted = 0n;
      let meter = createGasMeter(1n);
      try {
        const tx = decodeTx(bytes);
        gasWanted = tx.authInfo.fee?.gasLimit ?? 0n;
        meter = createGasMeter(gasWanted === 0n ? 1n : gasWanted);
        runAnte(anteContext, tx, 'check', meter);
        return {
          code: 0,
          codespace: '',
          log: checkLog,
          gasWanted,
          gasUsed: meter.used,
          events: [],
          data: new Uint8Array(),
        };
      } catch (error) {
        return failure(asChainError(error), gasWanted, meter.used);
      }
    },

    deliverTx(bytes, block, txIndex, mode, hash = txHash(bytes)) {
      const { journal } = state;
      journal.clear();
      let tx: DecodedTx;
      try {
        tx = decodeTx(bytes, hash);
      } catch (error) {
        return failure(asChainError(error), 0n, 0n);
      }
      const gasWanted = tx.authInfo.fee?.gasLimit ?? 0n;
      const gas = createGasMeter(gasWanted === 0n ? 1n : gasWanted);
      let anteEvents: ChainEvent[];
      try {
        anteEvents = runAnte(anteContext, tx, mode as AnteMode, gas);
      } catch (error) {
        journal.revertTo(0);
        journal.clear();
        return failure(asChainError(error), gasWanted, gas.used);
      }
      const afterAnte = journal.mark();
      const scope: CallScope = { height: block.height, timeNs: block.timeNs, gas, drafts: [] };
      const msgDrafts: number[] = [];
      try {
        const { events, responses, log } = runMessages(tx, scope, msgDrafts);
        const allEvents = [...anteEvents, ...events];
        scope.drafts.forEach(({ draft, event: emitted }, i) => {
          ledger.append(draft, {
            height: block.height,
            time: block.time,
            txHash: hash,
            txIndex,
            msgIndex: msgDrafts[i] ?? 0,
            eventIndex: emitted ? allEvents.indexOf(emitted) : -1,
          });
        });
        journal.clear();
        return {
          code: 0,
          codespace: '',
          log,
          gasWanted,
          gasUsed: gas.used,
          events: allEvents,
          data: txMsgData(responses),
        };
      } catch (error) {
        journal.revertTo(afterAnte);
        journal.clear();
        const chainError = asChainError(error);
        const msgIndex = (error as { msgIndex?: number }).msgIndex ?? 0;
        return failure(
          chainError,
          gasWanted,
          gas.used,
          anteEvents,
          `failed to execute message; message index: ${msgIndex}: ${chainError.message}`,
        );
      }
    },

    simulate(bytes) {
      const { journal } = state;
      journal.clear();
      try {
        const tx = decodeTx(bytes);
        const gas = createGasMeter(0n);
        const anteEvents = runAnte(anteContext, tx, 'simulate', gas);
        const scope: CallScope = { height: 0, timeNs: 0n, gas, drafts: [] };
        const { events, responses, log } = runMessages(tx, scope, []);
        return { gasUsed: gas.used, events: [...anteEvents, ...events], msgResponses: responses, log };
      } finally {
        journal.revertTo(0);
        journal.clear();
      }
    },

    runBlockCall(call, block) {
      const { journal } = state;
      journal.clear();
      const scope: CallScope = { height: block.height, timeNs: block.timeNs, gas: createGasMeter(0n), drafts: [] };
      try {
        const { events } = state.wasm.execute(scope, call.sender, call.contract, call.msg, call.funds);
        journal.clear();
        return { events: withBlockMode(protocol, events, call.phase), drafts: scope.drafts };
      } catch (error) {
        journal.revertTo(0);
        journal.clear();
        return { events: [], drafts: [], error: asChainError(error).message };
      }
    },

    resetPending() {
      pendingSequences.clear();
      pendingFees.clear();
    },
  };
}
