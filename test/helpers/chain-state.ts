// Assertions the state route tests share: a gateway error body, and an 18-decimal LegacyDec
// equal to the atomics cosmjs decoded from the node.
import { Decimal } from '@cosmjs/math';
import * as assert from 'uvu/assert';
import { assertShape } from './rest-shape.ts';

/** An answer with `status` and the gateway's `{code, message, details: []}` body (`message` exact or matching). */
export function assertGatewayError(
  answer: { status: number; body: unknown },
  status: number,
  code: number,
  message: RegExp | string,
): void {
  assert.is(answer.status, status, JSON.stringify(answer.body));
  assertShape(answer.body, 'error-invalid-address');
  const body = answer.body as { code: number; message: string; details: unknown[] };
  assert.is(body.code, code);
  if (typeof message === 'string') assert.is(body.message, message);
  else assert.match(body.message, message);
  assert.equal(body.details, []);
}

/** `api` is a Dec with 18 decimals equal to the LegacyDec `atomics` (its protobuf form). */
export function assertDec(api: string, atomics: string, what: string): void {
  assert.match(api, /^\d+\.\d{18}$/, what);
  assert.ok(Decimal.fromUserInput(api, 18).equals(Decimal.fromAtomics(atomics, 18)), `${what}: ${api} vs ${atomics}`);
}
