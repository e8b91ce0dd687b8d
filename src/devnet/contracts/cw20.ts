// A CW20 token (cw20-base semantics): balances, transfer, send with the receive hook,
// burn, and the token_info / balance / minter / marketing_info queries.
import { toBase64, toUtf8 } from '@cosmjs/encoding';
import { z } from 'zod';
import { ContractError } from '../errors.ts';
import { CODE_IDS } from './addresses.ts';
import { assign, mapSet } from './journaled.ts';
import { parseVariant, uint128, unknownVariant, variantOf } from './messages.ts';
import { type ContractCode, type ContractResponse, emptyResponse } from './types.ts';

const instantiateSchema = z.object({
  name: z.string().min(1).max(50),
  symbol: z.string().regex(/^[a-zA-Z-]{3,12}$/, 'symbol must be 3-12 letters or dashes'),
  decimals: z.number().int().min(0).max(18),
  initial_balances: z.array(z.object({ address: z.string(), amount: uint128 })).default([]),
  mint: z.object({ minter: z.string(), cap: uint128.optional().nullable() }).optional().nullable(),
  marketing: z
    .object({
      project: z.string().optional().nullable(),
      description: z.string().optional().nullable(),
      marketing: z.string().optional().nullable(),
      logo: z.object({ url: z.string() }).optional().nullable(),
    })
    .optional()
    .nullable(),
});
export type Cw20InstantiateMsg = z.input<typeof instantiateSchema>;

const executeSchemas = {
  transfer: z.object({ recipient: z.string().min(1), amount: uint128 }),
  send: z.object({ contract: z.string().min(1), amount: uint128, msg: z.string() }),
  burn: z.object({ amount: uint128 }),
};

const TYPE = 'cw20_base::msg::ExecuteMsg';

export const cw20Code: ContractCode = {
  codeId: CODE_IDS.cw20,
  instantiate(host, _env, _info, rawMsg) {
    const msg = parseVariant(instantiateSchema, rawMsg, 'cw20_base::msg::InstantiateMsg', 'instantiate');
    const { journal } = host;
    const balances = new Map<string, bigint>();
    const state = { totalSupply: 0n };
    for (const { address, amount } of msg.initial_balances) {
      balances.set(address, (balances.get(address) ?? 0n) + amount);
      state.totalSupply += amount;
    }
    const marketing = {
      project: msg.marketing?.project ?? null,
      description: msg.marketing?.description ?? null,
      marketing: msg.marketing?.marketing ?? null,
      logo: msg.marketing?.logo ? { url: msg.marketing.logo.url } : null,
    };
    const balanceOf = (address: string) => balances.get(address) ?? 0n;
    const move = (from: string, to: string, amount: bigint) => {
      if (amount === 0n) throw new ContractError('Invalid zero amount');
      const have = balanceOf(from);
      if (have < amount) throw new ContractError(`Overflow: Cannot Sub with ${have} and ${amount}`);
      mapSet(journal, balances, from, have - amount);
      mapSet(journal, balances, to, balanceOf(to) + amount);
    };

    const execute = (_env: unknown, info: { sender: string }, rawExec: unknown): ContractResponse => {
      const [variant, body] = variantOf(rawExec, TYPE);
      const response = emptyResponse();
      switch (variant) {
        case 'transfer': {
          const { recipient, amount } = parseVariant(executeSchemas.transfer, body, TYPE, variant);
          move(info.sender, recipient, amount);
          response.attributes.push(
            ['action', 'transfer'],
            ['from', info.sender],
            ['to', recipient],
            ['amount', amount.toString()],
          );
          return response;
        }
        case 'send': {
          const { contract, amount, msg: hook } = parseVariant(executeSchemas.send, body, TYPE, variant);
          move(info.sender, contract, amount);
          response.attributes.push(
            ['action', 'send'],
            ['from', info.sender],
            ['to', contract],
            ['amount', amount.toString()],
          );
          response.messages.push({
            kind: 'execute',
            contract,
            msg: { receive: { sender: info.sender, amount: amount.toString(), msg: hook } },
            funds: [],
          });
          return response;
        }
        case 'burn': {
          const { amount } = parseVariant(executeSchemas.burn, body, TYPE, variant);
          const have = balanceOf(info.sender);
          if (have < amount) throw new ContractError(`Overflow: Cannot Sub with ${have} and ${amount}`);
          mapSet(journal, balances, info.sender, have - amount);
          assign(journal, state, { totalSupply: state.totalSupply - amount });
          response.attributes.push(['action', 'burn'], ['from', info.sender], ['amount', amount.toString()]);
          return response;
        }
        default:
          return unknownVariant(TYPE, variant);
      }
    };

    const query = (rawQuery: unknown): unknown => {
      const [variant, body] = variantOf(rawQuery, 'cw20_base::msg::QueryMsg');
      switch (variant) {
        case 'token_info':
          return {
            name: msg.name,
            symbol: msg.symbol,
            decimals: msg.decimals,
            total_supply: state.totalSupply.toString(),
          };
        case 'balance': {
          const { address } = parseVariant(
            z.object({ address: z.string() }),
            body,
            'cw20_base::msg::QueryMsg',
            variant,
          );
          return { balance: balanceOf(address).toString() };
        }
        case 'minter':
          return msg.mint ? { minter: msg.mint.minter, cap: msg.mint.cap?.toString() ?? null } : null;
        case 'marketing_info':
          return marketing;
        default:
          return unknownVariant('cw20_base::msg::QueryMsg', variant);
      }
    };

    return { instance: { execute, query }, response: emptyResponse() };
  },
};

/** The CW20 `send` message that delivers tokens to a contract with a JSON hook message. */
export function cw20SendMsg(contract: string, amount: bigint, hook: unknown) {
  return { send: { contract, amount: amount.toString(), msg: toBase64(toUtf8(JSON.stringify(hook))) } };
}
