// Transactions: tx (by hash), tx_search, the three broadcast_tx forms and the mempool count.
// broadcast_tx_commit answers `deliver_tx` (0.34, 0.37) or `tx_result` (0.38), and a
// ResponseCheckTx with 0.34's and 0.37's mempool fields.
import { toHex } from '@cosmjs/encoding';
import { renderTxResult } from '../blocks/block.ts';
import { unpackPosition } from '../blocks/tx-index.ts';
import { DuplicateTxError } from '../node/node.ts';
import type { TxResult } from '../tx/run-tx.ts';
import { rpcErrors } from './errors.ts';
import type { Method, MethodContext } from './method-context.ts';
import type { Params } from './params.ts';
import { renderTx } from './render.ts';
import { pageBounds, parseQuery, searchTxs } from './tx-search.ts';

export function txMethods(ctx: MethodContext) {
  const { node } = ctx;
  const { store, protocol } = node;
  const abci2 = protocol.blockEvents === 'finalize';
  const checkTxJson = (result: TxResult) => {
    const json = { ...renderTxResult(result), data: null };
    return abci2 ? json : { ...json, sender: '', priority: '0', mempoolError: '' };
  };

  const requireTx = (params: Params) => {
    const tx = params.bytes('tx');
    if (!tx || tx.length === 0)
      throw rpcErrors.invalidParams('error converting json params to arguments: tx: empty transaction');
    return tx;
  };
  const submit = (tx: Uint8Array) => {
    try {
      return node.submit(tx);
    } catch (error) {
      if (error instanceof DuplicateTxError) throw rpcErrors.internal(error.message);
      throw error;
    }
  };

  const tx: Method = (params) => {
    const hash = params.bytes('hash');
    if (!hash) throw rpcErrors.invalidParams('error converting json params to arguments: hash: missing');
    const position = store.index.position(toHex(hash).toUpperCase());
    if (position === undefined) throw rpcErrors.internal(`tx (${toHex(hash).toUpperCase()}) not found`);
    const { height, index } = unpackPosition(position);
    return renderTx(store, height, index);
  };

  const search: Method = (params) => {
    const conditions = parseQuery(params.string('query') ?? '');
    const order = params.string('order_by') ?? '';
    if (order !== '' && order !== 'asc' && order !== 'desc')
      throw rpcErrors.internal('expected order_by to be either `asc` or `desc` or empty');
    const matches = searchTxs(store, conditions);
    const { start, end } = pageBounds(matches.length, { page: params.int('page'), perPage: params.int('per_page') });
    const ordered = order === 'desc' ? matches.slice().reverse() : matches;
    const txs = ordered.slice(start, end).map((p) => {
      const { height, index } = unpackPosition(p);
      return renderTx(store, height, index);
    });
    return { txs, total_count: String(matches.length) };
  };

  const broadcastAsync: Method = (params) => {
    const { hash } = submit(requireTx(params));
    return { code: 0, data: '', log: '', codespace: '', hash };
  };

  const broadcastSync: Method = (params) => {
    const { hash, check } = submit(requireTx(params));
    return { code: check.code, data: '', log: check.log, codespace: check.codespace, hash };
  };

  const broadcastCommit: Method = async (params) => {
    const { hash, check } = submit(requireTx(params));
    const resultKey = abci2 ? 'tx_result' : 'deliver_tx';
    if (check.code !== 0) return { check_tx: checkTxJson(check), [resultKey]: {}, hash, height: '0' };
    const committed = await node.waitForTx(hash, ctx.commitTimeoutMs);
    if (!committed) throw rpcErrors.internal('timed out waiting for tx to be included in a block');
    return { check_tx: checkTxJson(check), [resultKey]: committed.result, hash, height: String(committed.height) };
  };

  const unconfirmed: Method = () => ({
    n_txs: String(node.mempoolSize),
    total: String(node.mempoolSize),
    total_bytes: '0',
    txs: null,
  });

  return { tx, search, broadcastAsync, broadcastSync, broadcastCommit, unconfirmed };
}
