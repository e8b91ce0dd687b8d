// A devnet for tests and the clients that talk to it: the devnet on an ephemeral port,
// cosmjs wallets for its well-known accounts, signing and query clients configured as a dApp
// would configure them, and raw JSON-RPC for the protocol details cosmjs hides.
import { randomBytes } from 'node:crypto';
import { makeCosmoshubPath } from '@cosmjs/amino';
import { type JsonObject, SigningCosmWasmClient } from '@cosmjs/cosmwasm-stargate';
import { toBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  setupAuthExtension,
  setupBankExtension,
  setupGovExtension,
  setupMintExtension,
  setupStakingExtension,
  setupTxExtension,
} from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import { createNativeRegistry } from '../../src/chain/bridge-msg.ts';
import { DEFAULT_DEVNET_MNEMONIC } from '../../src/config.ts';
import { createDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/index.ts';

export const GAS_PRICE = GasPrice.fromString('0.01unative');

/** A devnet on an ephemeral port that makes blocks only when told to and trades only when asked. */
export function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  return createDevnet({ port: 0, blockMs: 0, tradesPerBlock: 0, ...options });
}

/** An address nobody holds: 32 random bytes (a contract address's length) in bech32 `native`. */
export const randomAddress = () => toBech32('native', randomBytes(32));

export function wallet(index: number, mnemonic = DEFAULT_DEVNET_MNEMONIC) {
  return DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: 'native', hdPaths: [makeCosmoshubPath(index)] });
}

const clientOptions = {
  registry: createNativeRegistry(),
  gasPrice: GAS_PRICE,
  broadcastPollIntervalMs: 50,
  broadcastTimeoutMs: 4_000,
};

export async function signingClient(devnet: Devnet, index: number) {
  const signer = await wallet(index);
  const [{ address }] = await signer.getAccounts();
  return {
    client: await SigningStargateClient.connectWithSigner(devnet.rpcUrl, signer, clientOptions),
    address: address!,
    signer,
  };
}

/** A SigningCosmWasmClient for account `index`, with `execute(contract, msg, funds)` paying an 'auto' fee. */
export async function wasmClient(devnet: Devnet, index: number) {
  const signer = await wallet(index);
  const [{ address }] = await signer.getAccounts();
  const client = await SigningCosmWasmClient.connectWithSigner(devnet.rpcUrl, signer, {
    gasPrice: GAS_PRICE,
    broadcastPollIntervalMs: 50,
    broadcastTimeoutMs: 4_000,
  });
  const execute = (contract: string, msg: unknown, funds: Coin[] = []) =>
    client.execute(address!, contract, msg as JsonObject, 'auto', '', funds);
  return { client, address: address!, signer, execute };
}

export const feeFor = (gas: number) => ({
  amount: [{ denom: 'unative', amount: String(Math.ceil(gas / 100)) }],
  gas: String(gas),
});

export const attr = (
  events: readonly { type: string; attributes: readonly { key: string; value: string }[] }[],
  type: string,
) => events.filter((e) => e.type === type).map((e) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value])));

export interface RpcError {
  code: number;
  message: string;
  data: string;
}

/** A JSON-RPC answer: `result` when the call succeeded, `error` when it did not. */
export interface RpcAnswer<Result> {
  jsonrpc: '2.0';
  id: number;
  result?: Result;
  error?: RpcError;
}

interface SearchedTx {
  hash: string;
  height: string;
  index: number;
}

/** The parts of the CometBFT results the tests read, by method. */
export interface RpcResults {
  health: Record<string, never>;
  status: { node_info: { network: string }; sync_info: { latest_block_height: string } };
  block: {
    block_id: { hash: string };
    block: {
      header: { height: string; last_block_id: { hash: string } };
      last_commit: { height: string };
      data: { txs: string[] };
    };
  };
  block_results: { height: string; txs_results: unknown[] };
  blockchain: { last_height: string; block_metas: { header: { height: string } }[] };
  genesis: { genesis: { chain_id: string } };
  tx: SearchedTx;
  tx_search: { total_count: string; txs: SearchedTx[] };
  broadcast_tx_commit: { check_tx: { code: number }; tx_result: { code: number }; height: string };
  num_unconfirmed_txs: { n_txs: string; total: string };
}

/** What `method` answers with: its entry in RpcResults, unknown for any other method. */
export type RpcResult<Method extends string> = Method extends keyof RpcResults ? RpcResults[Method] : unknown;

/** JSON-RPC POST straight to the devnet, for protocol details cosmjs hides. */
export async function rpc<Method extends string>(
  devnet: Devnet,
  method: Method,
  params: unknown = {},
): Promise<RpcAnswer<RpcResult<Method>>> {
  const response = await fetch(devnet.rpcUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await response.json()) as RpcAnswer<RpcResult<Method>>;
}

/** The result of a JSON-RPC call that must succeed; an error answer throws, saying what it was. */
export async function rpcResult<Method extends string>(
  devnet: Devnet,
  method: Method,
  params: unknown = {},
): Promise<RpcResult<Method>> {
  const answer = await rpc(devnet, method, params);
  if (answer.result === undefined) throw new Error(`${method} answered ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** A cosmjs QueryClient with the module extensions a Chain API uses. */
export async function queryClient(devnet: Devnet) {
  const comet = await Comet38Client.connect(devnet.rpcUrl);
  const query = QueryClient.withExtensions(
    comet,
    setupAuthExtension,
    setupBankExtension,
    setupStakingExtension,
    setupMintExtension,
    setupGovExtension,
    setupTxExtension,
  );
  return { query, comet };
}
