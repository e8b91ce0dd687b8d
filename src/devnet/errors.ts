// The devnet's error classes, all under one base, DevnetError: the ChainError, an SDK-style
// error with a codespace, a code and the registered description appended to the detail, as
// the Cosmos SDK renders raw_log; the ContractError a contract fails with, which the wasm
// host turns into a ChainError; and beside them the JSON-RPC server's RpcError
// (rpc/errors.ts), the node's DuplicateTxError (node/node.ts) and `npm run devnet`'s
// DevnetConfigError (config.ts). DevnetError extends Error itself: no devnet error is one of
// the service's. Only a ChainError reaches a result as it is: asChainError wraps anything
// else as an internal error.

/** The base of the devnet's error classes. */
export class DevnetError extends Error {
  override name = 'DevnetError';
}

export class ChainError extends DevnetError {
  constructor(
    readonly codespace: string,
    readonly code: number,
    readonly description: string,
    detail?: string,
  ) {
    super(detail ? `${detail}: ${description}` : description);
    this.name = 'ChainError';
  }
}

const sdk = (code: number, description: string) => (detail?: string) =>
  new ChainError('sdk', code, description, detail);

/** The SDK's registered errors (types/errors/errors.go) the devnet answers with. */
export const SdkErrors = {
  txDecode: sdk(2, 'tx parse error'),
  unauthorized: sdk(4, 'unauthorized'),
  insufficientFunds: sdk(5, 'insufficient funds'),
  unknownRequest: sdk(6, 'unknown request'),
  invalidAddress: sdk(7, 'invalid address'),
  unknownAddress: sdk(9, 'unknown address'),
  invalidPubKey: sdk(8, 'invalid pubkey'),
  invalidCoins: sdk(10, 'invalid coins'),
  outOfGas: sdk(11, 'out of gas'),
  insufficientFee: sdk(13, 'insufficient fee'),
  tooManySignatures: sdk(15, 'maximum number of signatures exceeded'),
  noSignatures: sdk(16, 'no signatures supplied'),
  invalidRequest: sdk(18, 'invalid request'),
  keyNotFound: sdk(22, 'key not found'),
  wrongSequence: sdk(32, 'incorrect account sequence'),
  notFound: sdk(38, 'not found'),
};

const wasm = (code: number, description: string) => (detail?: string) =>
  new ChainError('wasm', code, description, detail);

/** wasmd's registered errors (x/wasm/types/errors.go) for contract calls. */
export const WasmErrors = {
  instantiateFailed: wasm(4, 'instantiate wasm contract failed'),
  executeFailed: wasm(5, 'execute wasm contract failed'),
  queryFailed: wasm(9, 'query wasm contract failed'),
  noSuchContract: wasm(22, 'no such contract'),
  noSuchCode: wasm(28, 'no such code'),
};

/** A contract's own failure (like cosmwasm_std::StdError); the host wraps it in a wasm error. */
export class ContractError extends DevnetError {
  override name = 'ContractError';
}

export function asChainError(error: unknown): ChainError {
  if (error instanceof ChainError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ChainError('undefined', 1, 'internal', message);
}
