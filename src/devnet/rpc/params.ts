// Reading JSON-RPC params the way CometBFT's server does: named (object) or positional
// (array) from POST bodies, and URI query strings where strings are quoted and bytes hex.
import { fromBase64, fromHex } from '@cosmjs/encoding';
import { rpcErrors } from './errors.ts';

export type RawParams = Record<string, unknown>;

export interface Params {
  int(name: string): number | undefined;
  string(name: string): string | undefined;
  bool(name: string): boolean | undefined;
  /** Bytes: base64 in JSON bodies, 0x-hex (or quoted) in URIs; 64 hex chars are read as hex either way. */
  bytes(name: string): Uint8Array | undefined;
  /** abci_query's `data`: hex in both forms. */
  hex(name: string): Uint8Array | undefined;
}

export function readParams(raw: unknown, positional: readonly string[], source: 'http' | 'json'): Params {
  let named: RawParams = {};
  if (Array.isArray(raw)) for (const [i, name] of positional.entries()) named[name] = raw[i];
  else if (raw && typeof raw === 'object') named = raw as RawParams;
  else if (raw !== undefined && raw !== null)
    throw rpcErrors.invalidParams(
      `error converting ${source} params to arguments: params must be an object or an array`,
    );

  const fail = (name: string, why: string): never => {
    throw rpcErrors.invalidParams(`error converting ${source} params to arguments: ${name}: ${why}`);
  };
  const text = (name: string): string | undefined => {
    const value = named[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (typeof value !== 'string') return fail(name, `expected a string, got ${JSON.stringify(value)}`);
    return source === 'http' && /^".*"$/s.test(value) ? value.slice(1, -1) : value;
  };
  return {
    int(name) {
      const value = text(name);
      if (value === undefined) return undefined;
      if (!/^-?\d+$/.test(value)) return fail(name, `invalid int64 ${JSON.stringify(value)}`);
      return Number(value);
    },
    string: text,
    bool(name) {
      const value = text(name);
      if (value === undefined) return undefined;
      if (value !== 'true' && value !== 'false') return fail(name, `invalid bool ${JSON.stringify(value)}`);
      return value === 'true';
    },
    bytes(name) {
      const value = text(name);
      if (value === undefined) return undefined;
      try {
        // 0x-hex is the URI form's only: in a JSON body it is base64, which may begin "0X"
        if (source === 'http' && /^0x/i.test(value)) return fromHex(value.slice(2));
        if (/^[0-9a-fA-F]{64}$/.test(value)) return fromHex(value);
        return fromBase64(value);
      } catch {
        return fail(name, `invalid bytes ${JSON.stringify(value)}`);
      }
    },
    hex(name) {
      const value = text(name);
      if (value === undefined) return undefined;
      try {
        return fromHex(value.replace(/^0x/i, ''));
      } catch {
        return fail(name, `invalid hex ${JSON.stringify(value)}`);
      }
    },
  };
}
