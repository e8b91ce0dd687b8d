// The application's side of the RPC: abci_info and abci_query (a gRPC path answered by the
// devnet's query router).
import { toBase64 } from '@cosmjs/encoding';
import { APP_VERSION } from '../constants.ts';
import { rpcErrors } from './errors.ts';
import type { Method, MethodContext } from './method-context.ts';

export function abciMethods(ctx: MethodContext) {
  const { node } = ctx;
  const { store } = node;

  const info: Method = () => ({
    response: {
      data: 'native',
      version: APP_VERSION,
      app_version: '1',
      last_block_height: String(store.height),
      last_block_app_hash: toBase64(node.appHash),
    },
  });

  const query: Method = (params) => {
    const path = params.string('path');
    if (!path) throw rpcErrors.invalidParams('error converting json params to arguments: path: empty path');
    const data = params.hex('data') ?? new Uint8Array();
    const answer = ctx.abciQuery(path, data);
    return {
      response: {
        code: answer.code,
        log: answer.log,
        info: '',
        index: '0',
        key: null,
        value: answer.code === 0 ? toBase64(answer.value) : null,
        proofOps: null,
        height: String(store.height),
        codespace: answer.codespace,
      },
    };
  };

  return { info, query };
}
