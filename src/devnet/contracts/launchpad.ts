// The launchpad contract: creates CW20 tokens on a bonding curve, sells them for unative
// (buy) and buys them back through the CW20 receive hook (sell), and graduates a token to
// the AMM once its reserves reach a threshold priced from an oracle USD price of NATIVE.
import { z } from 'zod';
import { NATIVE_DENOM } from '../constants.ts';
import { ContractError } from '../errors.ts';
import { CODE_IDS } from './addresses.ts';
import { type CurveReserves, curveBuy, curveSell } from './curve-math.ts';
import { type Cw20InstantiateMsg, cw20SendMsg } from './cw20.ts';
import { contractEventAttributes, LAUNCHPAD_EVENTS } from './event-names.ts';
import { assign, mapSet } from './journaled.ts';
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

/** 1,000,000,000 tokens of 6 decimals: 800M are sold on the curve, 200M seed the AMM pool. */
export const TOKEN_TOTAL_SUPPLY = 1_000_000_000_000_000n;
export const CURVE_TOKENS = 800_000_000_000_000n;
export const VIRTUAL_NATIVE = 30_000_000_000n;
export const VIRTUAL_TOKENS = 1_073_000_000_000_000n;
export const TOKEN_DECIMALS = 6;

export const LAUNCHPAD_DEFAULTS = {
  creationFee: 1_000_000n,
  feeBps: 100n,
  /** NATIVE at $0.50 (micro-USD per NATIVE). */
  nativeUsdMicro: 500_000n,
  /** Graduation when the curve's reserves are worth $12,000. */
  graduationUsdMicro: 12_000_000_000n,
};

export interface Curve extends CurveReserves {
  token: string;
  creator: string;
  graduated: boolean;
  /** Reserves at the moment of graduation (the curve is empty afterwards). */
  finalNativeReserves: bigint;
}

const TYPE = 'launchpad::msg::ExecuteMsg';
const QTYPE = 'launchpad::msg::QueryMsg';
const tokenRef = z.object({ token_address: z.string().min(1) });
const executeSchemas = {
  create_token: z.object({
    name: z.string().min(1).max(50),
    symbol: z.string().regex(/^[a-zA-Z-]{3,12}$/, 'symbol must be 3-12 letters or dashes'),
    image: z.string().max(512).default(''),
    description: z.string().max(1024).default(''),
  }),
  buy: tokenRef.extend({ min_tokens_out: uint128.optional() }),
  set_oracle_price: z.object({ native_usd_micro: uint128 }),
  receive: z.object({ sender: z.string(), amount: uint128, msg: z.string() }),
  sell: z.object({ min_native_out: uint128.optional() }),
};

/** Graduation threshold in unative: the USD target divided by the USD price of one unative. */
export function graduationThreshold(graduationUsdMicro: bigint, nativeUsdMicro: bigint): bigint {
  return (graduationUsdMicro * 1_000_000n + nativeUsdMicro - 1n) / nativeUsdMicro;
}

export const launchpadCode: ContractCode = {
  codeId: CODE_IDS.launchpad,
  instantiate(host, env, _info, rawMsg) {
    const self = env.contract;
    const init = parseVariant(
      z.object({ admin: z.string(), amm: z.string() }),
      rawMsg,
      'launchpad::msg::InstantiateMsg',
      'instantiate',
    );
    const { journal } = host;
    const config = { admin: init.admin, amm: init.amm, ...LAUNCHPAD_DEFAULTS };
    const curves = new Map<string, Curve>();
    const order: string[] = [];

    const threshold = () => graduationThreshold(config.graduationUsdMicro, config.nativeUsdMicro);
    const curveOf = (token: string) => {
      const curve = curves.get(token);
      if (!curve) throw new ContractError(`Unknown token ${token}`);
      return curve;
    };

    function createToken(info: MessageInfo, body: unknown): ContractResponse {
      const { name, symbol, image, description } = parseVariant(
        executeSchemas.create_token,
        body,
        TYPE,
        'create_token',
      );
      const paid = nativeFunds(info.funds, NATIVE_DENOM);
      if (paid !== config.creationFee)
        throw new ContractError(`Creation fee is ${config.creationFee}${NATIVE_DENOM}, got ${paid}${NATIVE_DENOM}`);
      const token = host.nextContractAddress(CODE_IDS.cw20);
      const curve: Curve = {
        token,
        creator: info.sender,
        graduated: false,
        virtualNative: VIRTUAL_NATIVE,
        virtualTokens: VIRTUAL_TOKENS,
        realNative: paid,
        realTokens: CURVE_TOKENS,
        finalNativeReserves: 0n,
      };
      mapSet(journal, curves, token, curve);
      order.push(token);
      journal.record(() => void order.pop());
      const cw20: Cw20InstantiateMsg = {
        name,
        symbol,
        decimals: TOKEN_DECIMALS,
        initial_balances: [{ address: self, amount: TOKEN_TOTAL_SUPPLY.toString() }],
        marketing: { project: name, description, marketing: info.sender, logo: image ? { url: image } : null },
      };
      const response = emptyResponse();
      response.attributes.push(['action', 'create_token'], ['token_address', token], ['creator', info.sender]);
      response.events.push({
        type: LAUNCHPAD_EVENTS.tokenCreated,
        attributes: contractEventAttributes('token_created', {
          token_address: token,
          creator: info.sender,
          name,
          symbol,
          image,
          description,
          initial_reserves: paid,
        }),
        ledger: {
          kind: 'launch',
          token,
          source: 'launchpad',
          creator: info.sender,
          name,
          symbol,
          image,
          description,
          initialReserves: paid,
        },
      });
      response.messages.push({
        kind: 'instantiate',
        codeId: CODE_IDS.cw20,
        msg: cw20,
        funds: [],
        label: `${symbol} token`,
        admin: null,
      });
      response.data = { token_address: token };
      return response;
    }

    function buy(info: MessageInfo, body: unknown): ContractResponse {
      const { token_address: token, min_tokens_out } = parseVariant(executeSchemas.buy, body, TYPE, 'buy');
      const curve = curveOf(token);
      if (curve.graduated) throw new ContractError('Token has graduated; trade it on the AMM');
      const nativeInput = nativeFunds(info.funds, NATIVE_DENOM);
      if (nativeInput === 0n) throw new ContractError(`No funds sent; send ${NATIVE_DENOM} to buy`);
      const result = curveBuy(curve, nativeInput, config.feeBps);
      if (result.tokensOut === 0n) throw new ContractError('Buy too small: zero tokens out');
      if (min_tokens_out !== undefined && result.tokensOut < min_tokens_out) {
        throw new ContractError(`Slippage exceeded: ${result.tokensOut} tokens out is less than ${min_tokens_out}`);
      }
      assign(journal, curve, result.after);
      const graduates = result.after.realNative >= threshold() || result.after.realTokens === 0n;
      const action = graduates ? LAUNCHPAD_EVENTS.buyAndGraduate : LAUNCHPAD_EVENTS.buy;
      const response = emptyResponse();
      response.attributes.push(['action', action], ['token_address', token], ['buyer', info.sender]);
      response.events.push({
        type: action,
        attributes: contractEventAttributes(action, {
          token_address: token,
          buyer: info.sender,
          native_input: nativeInput,
          tokens_out: result.tokensOut,
          fee: result.fee,
          native_reserves: result.after.realNative,
        }),
        ledger: {
          kind: 'trade',
          source: 'launchpad',
          action,
          direction: 'native_to_token',
          token,
          trader: info.sender,
          inputAmount: nativeInput,
          outputAmount: result.tokensOut,
          feeUnative: result.fee,
          nativeReservesAfter: result.after.realNative,
        },
      });
      response.messages.push({
        kind: 'execute',
        contract: token,
        msg: { transfer: { recipient: info.sender, amount: result.tokensOut.toString() } },
        funds: [],
      });
      if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
      if (graduates) graduate(curve, response);
      return response;
    }

    function graduate(curve: Curve, response: ContractResponse) {
      const nativeForPool = curve.realNative;
      const tokensForPool = curve.realTokens + (TOKEN_TOTAL_SUPPLY - CURVE_TOKENS);
      assign(journal, curve, { graduated: true, finalNativeReserves: nativeForPool, realNative: 0n, realTokens: 0n });
      response.events.push({
        type: LAUNCHPAD_EVENTS.graduate,
        attributes: contractEventAttributes('graduate', {
          token_address: curve.token,
          native_for_pool: nativeForPool,
          tokens_for_pool: tokensForPool,
          creator: curve.creator,
        }),
        ledger: { kind: 'graduation', token: curve.token, nativeForPool, tokensForPool, creator: curve.creator },
      });
      response.messages.push(
        { kind: 'bank_send', to: config.amm, amount: [{ denom: NATIVE_DENOM, amount: nativeForPool.toString() }] },
        {
          kind: 'execute',
          contract: curve.token,
          msg: cw20SendMsg(config.amm, tokensForPool, { create_pool: { native_amount: nativeForPool.toString() } }),
          funds: [],
        },
      );
    }

    function sell(info: MessageInfo, body: unknown): ContractResponse {
      const hook = parseVariant(executeSchemas.receive, body, TYPE, 'receive');
      const [variant, hookBody] = variantOf(decodeBinaryJson(hook.msg), 'launchpad::msg::ReceiveMsg');
      if (variant !== 'sell') return unknownVariant('launchpad::msg::ReceiveMsg', variant);
      const { min_native_out } = parseVariant(executeSchemas.sell, hookBody, 'launchpad::msg::ReceiveMsg', variant);
      const token = info.sender;
      const curve = curveOf(token);
      if (curve.graduated) throw new ContractError('Token has graduated; trade it on the AMM');
      const result = curveSell(curve, hook.amount, config.feeBps);
      if (result.nativeOut === 0n) throw new ContractError('Sell too small: zero native out');
      if (min_native_out !== undefined && result.nativeOut < min_native_out) {
        throw new ContractError(`Slippage exceeded: ${result.nativeOut} native out is less than ${min_native_out}`);
      }
      assign(journal, curve, result.after);
      const response = emptyResponse();
      response.attributes.push(['action', 'sell'], ['token_address', token], ['seller', hook.sender]);
      response.events.push({
        type: LAUNCHPAD_EVENTS.sell,
        attributes: contractEventAttributes('sell', {
          token_address: token,
          seller: hook.sender,
          tokens_input: hook.amount,
          native_out: result.nativeOut,
          fee: result.fee,
          native_reserves: result.after.realNative,
        }),
        ledger: {
          kind: 'trade',
          source: 'launchpad',
          action: 'sell',
          direction: 'token_to_native',
          token,
          trader: hook.sender,
          inputAmount: hook.amount,
          outputAmount: result.nativeOut,
          feeUnative: result.fee,
          nativeReservesAfter: result.after.realNative,
        },
      });
      response.messages.push({
        kind: 'bank_send',
        to: hook.sender,
        amount: [{ denom: NATIVE_DENOM, amount: result.nativeOut.toString() }],
      });
      if (result.fee > 0n) response.messages.push(feeTransfer(result.fee));
      return response;
    }

    function setOraclePrice(info: MessageInfo, body: unknown): ContractResponse {
      if (info.sender !== config.admin) throw new ContractError('Unauthorized: only the admin sets the oracle price');
      const { native_usd_micro } = parseVariant(executeSchemas.set_oracle_price, body, TYPE, 'set_oracle_price');
      if (native_usd_micro === 0n) throw new ContractError('Oracle price must be positive');
      assign(journal, config, { nativeUsdMicro: native_usd_micro });
      const response = emptyResponse();
      response.attributes.push(
        ['action', 'set_oracle_price'],
        ['native_usd_micro', native_usd_micro.toString()],
        ['graduation_threshold', threshold().toString()],
      );
      return response;
    }

    function progressOf(token: string) {
      const curve = curveOf(token);
      const limit = threshold();
      const reserves = curve.graduated ? curve.finalNativeReserves : curve.realNative;
      const bps = curve.graduated ? 10_000n : (reserves * 10_000n) / limit;
      const capped = bps > 10_000n ? 10_000n : bps;
      return {
        token_address: token,
        creator: curve.creator,
        graduated: curve.graduated,
        native_reserves: reserves.toString(),
        token_reserves: curve.realTokens.toString(),
        virtual_native_reserves: curve.virtualNative.toString(),
        virtual_token_reserves: curve.virtualTokens.toString(),
        graduation_threshold: limit.toString(),
        progress_bps: Number(capped),
        progress: `${capped / 10_000n}.${(capped % 10_000n).toString().padStart(4, '0')}`,
        spot_price_unative: ((curve.virtualNative * 1_000_000n) / curve.virtualTokens).toString(),
      };
    }

    return {
      instance: {
        execute(_env, info, rawExec) {
          const [variant, body] = variantOf(rawExec, TYPE);
          switch (variant) {
            case 'create_token':
              return createToken(info, body);
            case 'buy':
              return buy(info, body);
            case 'receive':
              return sell(info, body);
            case 'set_oracle_price':
              return setOraclePrice(info, body);
            default:
              return unknownVariant(TYPE, variant);
          }
        },
        query(rawQuery) {
          const [variant, body] = variantOf(rawQuery, QTYPE);
          switch (variant) {
            case 'config':
              return {
                admin: config.admin,
                amm: config.amm,
                creation_fee: config.creationFee.toString(),
                fee_bps: Number(config.feeBps),
                native_usd_micro: config.nativeUsdMicro.toString(),
                graduation_usd_micro: config.graduationUsdMicro.toString(),
                graduation_threshold: threshold().toString(),
              };
            case 'progress':
              return progressOf(parseVariant(tokenRef, body, QTYPE, variant).token_address);
            case 'tokens': {
              const { start_after, limit } = parseVariant(
                z.object({ start_after: z.string().optional(), limit: z.number().int().min(1).max(100).default(30) }),
                body,
                QTYPE,
                variant,
              );
              const start = start_after ? order.indexOf(start_after) + 1 : 0;
              return { tokens: order.slice(start, start + limit).map(progressOf) };
            }
            default:
              return unknownVariant(QTYPE, variant);
          }
        },
      },
      response: emptyResponse(),
    };
  },
};
