// The traffic generator: each block it adds `rate` trades (fractional rates are a
// probability) from the generator's traders — token launches on the launchpad and directly
// on the AMM, buys, sells (which graduate tokens as reserves grow) and AMM swaps both ways.
// Up to REAL_SIGNATURE_RATE trades per block carry real signatures; above it the fast path.

import type { ChainState } from '../app/chain-state.ts';
import { NATIVE_DENOM } from '../constants.ts';
import { DEVNET_CONTRACTS } from '../contracts/addresses.ts';
import { cw20SendMsg } from '../contracts/cw20.ts';
import { LAUNCHPAD_DEFAULTS } from '../contracts/launchpad-state.ts';
import type { DevnetLedger } from '../ledger/ledger.ts';
import type { BlockFiller } from '../node/node.ts';
import type { AccountKey } from '../state/keys.ts';
import { buildFastExecuteTx, buildSignedExecuteTx, type ContractCall, GENERATOR_FEE } from './tx-builder.ts';

export const REAL_SIGNATURE_RATE = 50;
const NATIVE = 1_000_000n;
const WORDS = [
  'Moon',
  'Frog',
  'Rocket',
  'Cat',
  'Pepe',
  'Doge',
  'Lambo',
  'Pump',
  'Based',
  'Giga',
  'Turbo',
  'Wif',
  'Bonk',
  'Chad',
  'Ape',
  'Neko',
];

export interface TrafficGenerator {
  readonly rate: number;
  setRate(tradesPerBlock: number): void;
  fill: BlockFiller;
}

interface KnownToken {
  address: string;
  onCurve: boolean;
}

/** mulberry32: a small seeded PRNG, so a run's traffic is reproducible from its seed. */
function createRandom(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createTrafficGenerator(options: {
  chainId: string;
  state: ChainState;
  ledger: DevnetLedger;
  traders: AccountKey[];
  rate: number;
  seed?: number;
}): TrafficGenerator {
  const { chainId, state, ledger, traders } = options;
  const random = createRandom(options.seed ?? 42);
  let rate = options.rate;
  const tokens: KnownToken[] = [];
  const byAddress = new Map<string, KnownToken>();
  let launchesSeen = 0;
  let graduationsSeen = 0;

  /** Learns new tokens and graduations from the ledger (what actually executed). */
  function syncTokens() {
    for (; launchesSeen < ledger.launches.length; launchesSeen++) {
      const launch = ledger.launches[launchesSeen]!;
      const token = { address: launch.token, onCurve: launch.source === 'launchpad' };
      tokens.push(token);
      byAddress.set(token.address, token);
    }
    for (; graduationsSeen < ledger.graduations.length; graduationsSeen++) {
      const token = byAddress.get(ledger.graduations[graduationsSeen]!.token);
      if (token) token.onCurve = false;
    }
  }

  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  /** Log-uniform amount between min and max unative. */
  const amountBetween = (min: bigint, max: bigint) => {
    const exponent = Math.log(Number(min)) + random() * (Math.log(Number(max)) - Math.log(Number(min)));
    return BigInt(Math.floor(Math.exp(exponent)));
  };
  const tokenBalance = (token: string, address: string) =>
    BigInt((state.wasm.querySmart(token, { balance: { address } }) as { balance: string }).balance);
  const nativeBalance = (address: string) => state.bank.balance(address, NATIVE_DENOM);
  const fundsOf = (amount: bigint) => [{ denom: NATIVE_DENOM, amount: amount.toString() }];

  function tokenName() {
    const word = pick(WORDS) + pick(WORDS);
    return { name: word, symbol: word.slice(0, 6).toUpperCase() };
  }

  function planCall(trader: AccountKey): ContractCall {
    syncTokens();
    const spendable = nativeBalance(trader.address) - GENERATOR_FEE * 2n;
    const roll = random();
    if (tokens.length < 3 || roll < 0.003) {
      const { name, symbol } = tokenName();
      const description = `${name} launched by the devnet traffic generator`;
      return {
        contract: DEVNET_CONTRACTS.launchpad,
        msg: {
          create_token: { name, symbol, image: `https://img.devnet.invalid/${symbol.toLowerCase()}.png`, description },
        },
        funds: fundsOf(LAUNCHPAD_DEFAULTS.creationFee),
      };
    }
    if (roll < 0.004 && spendable > 50_000n * NATIVE) {
      const { name, symbol } = tokenName();
      return {
        contract: DEVNET_CONTRACTS.amm,
        msg: { create_token_pool: { name, symbol, image: '', description: `${name} started directly on the AMM` } },
        funds: fundsOf(amountBetween(5_000n * NATIVE, 20_000n * NATIVE)),
      };
    }
    // Recent tokens trade more, like on a real launchpad.
    const token = tokens[tokens.length - 1 - Math.floor(tokens.length * random() ** 4)]!;
    const held = tokenBalance(token.address, trader.address);
    const wantsToSell = held > 0n && (random() < 0.35 || spendable < 10n * NATIVE);
    if (wantsToSell) {
      const amount = (held * BigInt(10 + Math.floor(random() * 50))) / 100n;
      const hook = token.onCurve ? { sell: {} } : { swap: {} };
      const to = token.onCurve ? DEVNET_CONTRACTS.launchpad : DEVNET_CONTRACTS.amm;
      return { contract: token.address, msg: cw20SendMsg(to, amount > 0n ? amount : held, hook), funds: [] };
    }
    const cap = spendable / 100n > NATIVE ? spendable / 100n : NATIVE;
    const amount = amountBetween(NATIVE, 2_000n * NATIVE);
    const spend = amount < cap ? amount : cap;
    return token.onCurve
      ? { contract: DEVNET_CONTRACTS.launchpad, msg: { buy: { token_address: token.address } }, funds: fundsOf(spend) }
      : { contract: DEVNET_CONTRACTS.amm, msg: { swap: { token_address: token.address } }, funds: fundsOf(spend) };
  }

  return {
    get rate() {
      return rate;
    },
    setRate(next) {
      if (!Number.isFinite(next) || next < 0)
        throw new RangeError(`trades per block must be a non-negative number, got ${next}`);
      rate = next;
    },
    fill(_block, execute) {
      const whole = Math.floor(rate);
      const count = whole + (random() < rate - whole ? 1 : 0);
      const sign = count <= REAL_SIGNATURE_RATE;
      for (let i = 0; i < count; i++) {
        const trader = pick(traders);
        const account = state.accounts.get(trader.address)!;
        const signer = { key: trader, accountNumber: account.accountNumber, sequence: account.sequence };
        const call = planCall(trader);
        const bytes = sign ? buildSignedExecuteTx(chainId, signer, call) : buildFastExecuteTx(signer, call);
        execute(bytes, sign ? 'deliver' : 'trusted');
      }
    },
  };
}
