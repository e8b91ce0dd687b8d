// Deterministic gas accounting: fixed costs per operation, so a simulation reports exactly
// the gas the execution of the same transaction consumes.
import { SdkErrors } from '../errors.ts';

export const GAS_COSTS = {
  /** Ante handler: fee deduction, account and signature checks. */
  anteBase: 15_000,
  /** Per byte of the tx body (the SDK charges per tx byte; the body excludes signatures and fee, which simulation cannot know). */
  perBodyByte: 10,
  signatureVerify: 1_000,
  bankSend: 20_000,
  bankSendPerCoin: 5_000,
  delegate: 80_000,
  bridgeBurn: 40_000,
  wasmInstantiate: 100_000,
  wasmExecute: 60_000,
  /** Per byte of a contract message's JSON. */
  wasmPerMsgByte: 30,
  wasmBankSubmsg: 15_000,
} as const;

export interface GasMeter {
  readonly limit: bigint;
  readonly used: bigint;
  consume(amount: number, descriptor: string): void;
}

/** `limit` 0 means unlimited (simulation). */
export function createGasMeter(limit: bigint): GasMeter {
  let used = 0n;
  return {
    limit,
    get used() {
      return used;
    },
    consume(amount, descriptor) {
      used += BigInt(amount);
      if (limit > 0n && used > limit) {
        throw SdkErrors.outOfGas(`out of gas in location: ${descriptor}; gasWanted: ${limit}, gasUsed: ${used}`);
      }
    },
  };
}
