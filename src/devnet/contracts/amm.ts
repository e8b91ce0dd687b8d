// The AMM contract: constant-product pools of unative against a CW20, created by a
// launchpad graduation or directly (a token that starts on the AMM), and swaps both ways.
import { z } from 'zod';
import { NATIVE_DENOM } from '../constants.ts';
import { ContractError } from '../errors.ts';
import { CODE_IDS } from './addresses.ts';
import { type PoolReserves, poolSwapNativeIn, poolSwapTokenIn } from './curve-math.ts';
import { contractEventAttributes, customEventType } from './custom-events.ts';
import type { Cw20InstantiateMsg } from './cw20.ts';
import { assign, mapSet } from './journaled.ts';
import { TOKEN_DECIMALS, TOKEN_TOTAL_SUPPLY } from './launchpad-state.ts';
import {
  decodeBinaryJson,
  feeTransfer,
  nativeFunds,
  parseVariant,
  uint128,
  unknownVariant,
  variantOf,
} from './messages.ts';
import { type ContractCode, type ContractResponse, emptyResponse, type MessageInfo } from './types.ts';

export const AMM_FEE_BPS = 30n;

export interface Pool extends PoolReserves {
  token: string;
  source: 'launchpad' | 'amm';
}

const TYPE = 'amm::msg::ExecuteMsg';
const QTYPE = 'amm::msg::QueryMsg';
const RTYPE = 'amm::msg::ReceiveMsg';
const executeSchemas = {
  swap: z.object({ token_address: z.string().min(1), min_return: uint128.optional() }),
  create_token_pool: z.object({
    name: z.string().min(1).max(50),
    symbol: z.string().regex(/^[a-zA-Z-]{3,12}$/, 'symbol must be 3-12 letters or dashes'),
    image: z.string().max(512).default(''),
    description: z.string().max(1024).default(''),
  }),
  receive: z.object({ sender: z.string(), amount: uint128, msg: z.string() }),
  hookSwap: z.object({ min_return: uint128.optional() }),
  hookCreatePool: z.object({ native_amount: uint128 }),
};

export const ammCode: ContractCode = {
  codeId: CODE_IDS.amm,
  instantiate(host, env, _info, rawMsg) {
    const self = env.contract;
    const init = parseVariant(
      z.object({ admin: z.string(), launchpad: z.string() }),
      rawMsg,
      'amm::msg::InstantiateMsg',
      'instantiate',
    );
    const { journal } = host;
    const pools = new Map<string, Pool>();
    const order: string[] = [];

    const poolOf = (token: string) => poolIn(pools, token);
    const addPool = (pool: Pool) => {
      if (pools.has(pool.token)) throw new ContractError(`Pool for ${pool.token} already exists`);
      mapSet(journal, pools, pool.token, pool);
      order.push(pool.token);
      journal.record(() => void order.pop());
    };

    function swapNativeIn(info: MessageInfo, body: unknown): ContractResponse {
      const { token_address: token, min_return } = parseVariant(executeSchemas.swap, body, TYPE, 'swap');
      const pool = poolOf(token);
      const offer = nativeFunds(info.funds, NATIVE_DENOM);
      if (offer === 0n) throw new ContractError(`No funds sent; send ${NATIVE_DENOM} to swap`);
      const result = poolSwapNativeIn(pool, offer, AMM_FEE_BPS);
      checkReturn(result.returnAmount, min_return);
      assign(journal, pool, result.after);
      const response = emptyResponse();
      response.attributes.push(['action', 'swap'], ['token_address', token], ['trader', info.sender]);
      response.events.push(swapEvent(token, info.sender, 'native_to_token', offer, result));
      response.messages.push({
        kind: 'execute',
        contract: token,
        msg: { transfer: { recipient: info.sender, amount: result.returnAmount.toString() } },
        funds: [],
      });
      if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
      return response;
    }

    function receive(info: MessageInfo, body: unknown): ContractResponse {
      const hook = parseVariant(executeSchemas.receive, body, TYPE, 'receive');
      const [variant, hookBody] = variantOf(decodeBinaryJson(hook.msg), RTYPE);
      const token = info.sender;
      const response = emptyResponse();
      if (variant === 'create_pool') {
        // Only the launchpad's graduation creates a pool this way; it sent the native side just before.
        if (hook.sender !== init.launchpad)
          throw new ContractError('Unauthorized: only the launchpad creates pools from a CW20 send');
        const { native_amount } = parseVariant(executeSchemas.hookCreatePool, hookBody, RTYPE, variant);
        addPool({ token, source: 'launchpad', nativeReserves: native_amount, tokenReserves: hook.amount });
        response.attributes.push(
          ['action', 'create_pool'],
          ['token_address', token],
          ['native_reserves', native_amount.toString()],
          ['token_reserves', hook.amount.toString()],
        );
        return response;
      }
      if (variant !== 'swap') return unknownVariant(RTYPE, variant);
      const { min_return } = parseVariant(executeSchemas.hookSwap, hookBody, RTYPE, variant);
      const pool = poolOf(token);
      const result = poolSwapTokenIn(pool, hook.amount, AMM_FEE_BPS);
      checkReturn(result.returnAmount, min_return);
      assign(journal, pool, result.after);
      response.attributes.push(['action', 'swap'], ['token_address', token], ['trader', hook.sender]);
      response.events.push(swapEvent(token, hook.sender, 'token_to_native', hook.amount, result));
      response.messages.push({
        kind: 'bank_send',
        to: hook.sender,
        amount: [{ denom: NATIVE_DENOM, amount: result.returnAmount.toString() }],
      });
      if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
      return response;
    }

    function createTokenPool(info: MessageInfo, body: unknown): ContractResponse {
      const { name, symbol, image, description } = parseVariant(
        executeSchemas.create_token_pool,
        body,
        TYPE,
        'create_token_pool',
      );
      const nativeAmount = nativeFunds(info.funds, NATIVE_DENOM);
      if (nativeAmount === 0n) throw new ContractError(`Send ${NATIVE_DENOM} to seed the pool`);
      const token = host.nextContractAddress(CODE_IDS.cw20);
      addPool({ token, source: 'amm', nativeReserves: nativeAmount, tokenReserves: TOKEN_TOTAL_SUPPLY });
      const cw20: Cw20InstantiateMsg = {
        name,
        symbol,
        decimals: TOKEN_DECIMALS,
        initial_balances: [{ address: self, amount: TOKEN_TOTAL_SUPPLY.toString() }],
        marketing: { project: name, description, marketing: info.sender, logo: image ? { url: image } : null },
      };
      const response = emptyResponse();
      response.attributes.push(
        ['action', 'create_token_pool'],
        ['token_address', token],
        ['creator', info.sender],
        ['native_reserves', nativeAmount.toString()],
        ['token_reserves', TOKEN_TOTAL_SUPPLY.toString()],
      );
      // No custom event: the indexer first learns of such a token from its first swap.
      response.messages.push({
        kind: 'instantiate',
        codeId: CODE_IDS.cw20,
        msg: cw20,
        funds: [],
        label: `${symbol} token`,
        admin: null,
      });
      response.data = { token_address: token };
      response.records = [
        {
          kind: 'launch',
          token,
          source: 'amm',
          creator: info.sender,
          name,
          symbol,
          image,
          description,
          initialReserves: nativeAmount,
        },
      ];
      return response;
    }

    return {
      instance: {
        execute(_env, info, rawExec) {
          const [variant, body] = variantOf(rawExec, TYPE);
          switch (variant) {
            case 'swap':
              return swapNativeIn(info, body);
            case 'receive':
              return receive(info, body);
            case 'create_token_pool':
              return createTokenPool(info, body);
            default:
              return unknownVariant(TYPE, variant);
          }
        },
        query: (rawQuery) => queryAmm({ init, pools, order }, rawQuery),
      },
      response: emptyResponse(),
    };
  },
};

/** The custom swap event and its ledger record. */
function swapEvent(
  token: string,
  trader: string,
  direction: 'native_to_token' | 'token_to_native',
  offer: bigint,
  result: ReturnType<typeof poolSwapNativeIn>,
) {
  return {
    type: customEventType('swap'),
    attributes: contractEventAttributes('swap', {
      token_address: token,
      trader,
      direction,
      offer_amount: offer,
      return_amount: result.returnAmount,
      fee: result.fee,
      native_reserves: result.after.nativeReserves,
    }),
    ledger: {
      kind: 'trade' as const,
      source: 'amm' as const,
      action: 'swap' as const,
      direction,
      token,
      trader,
      inputAmount: offer,
      outputAmount: result.returnAmount,
      feeUnative: result.fee,
      nativeReservesAfter: result.after.nativeReserves,
    },
  };
}

/** A pool as the `pool` and `pools` queries answer it. */
const poolView = (pool: Pool) => ({
  token_address: pool.token,
  source: pool.source,
  native_reserves: pool.nativeReserves.toString(),
  token_reserves: pool.tokenReserves.toString(),
  fee_bps: Number(AMM_FEE_BPS),
  spot_price_unative:
    pool.tokenReserves === 0n ? '0' : ((pool.nativeReserves * 1_000_000n) / pool.tokenReserves).toString(),
});

/** The AMM's queries: `config`, `pool`, `pools` (in creation order, paged by `start_after`). */
function queryAmm(
  state: { init: { admin: string; launchpad: string }; pools: Map<string, Pool>; order: string[] },
  rawQuery: unknown,
) {
  const { init, pools, order } = state;
  const [variant, body] = variantOf(rawQuery, QTYPE);
  switch (variant) {
    case 'config':
      return { admin: init.admin, launchpad: init.launchpad, fee_bps: Number(AMM_FEE_BPS) };
    case 'pool':
      return poolView(
        poolIn(pools, parseVariant(z.object({ token_address: z.string() }), body, QTYPE, variant).token_address),
      );
    case 'pools': {
      const { start_after, limit } = parseVariant(
        z.object({ start_after: z.string().optional(), limit: z.number().int().min(1).max(100).default(30) }),
        body,
        QTYPE,
        variant,
      );
      const start = start_after ? order.indexOf(start_after) + 1 : 0;
      return { pools: order.slice(start, start + limit).map((t) => poolView(pools.get(t)!)) };
    }
    default:
      return unknownVariant(QTYPE, variant);
  }
}

function poolIn(pools: Map<string, Pool>, token: string): Pool {
  const pool = pools.get(token);
  if (!pool) throw new ContractError(`No pool for token ${token}`);
  return pool;
}

function checkReturn(returnAmount: bigint, minReturn: bigint | undefined) {
  if (returnAmount === 0n) throw new ContractError('Swap too small: zero return');
  if (minReturn !== undefined && returnAmount < minReturn)
    throw new ContractError(`Slippage exceeded: return ${returnAmount} is less than ${minReturn}`);
}
