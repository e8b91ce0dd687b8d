// A gRPC query route over ABCI: decode the request with its cosmjs-types codec, answer,
// encode the response. The router maps `/package.Service/Method` paths to routes.
import type { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';

interface Codec<T> {
  decode(input: BinaryReader | Uint8Array, length?: number): T;
}
interface Encoder<T> {
  encode(message: T, writer?: BinaryWriter): BinaryWriter;
  // cosmjs-types declares fromPartial<I extends Exact<DeepPartial<T>, I>>, which no plain type satisfies
  // biome-ignore lint/suspicious/noExplicitAny: the generic bound above cannot be written here
  fromPartial(object: any): T;
}

export type QueryRoute = (data: Uint8Array) => Uint8Array;

export function route<Req, Res>(
  request: Codec<Req>,
  response: Encoder<Res>,
  answer: (req: Req) => Partial<Res>,
): QueryRoute {
  return (data) => response.encode(response.fromPartial(answer(request.decode(data)))).finish();
}

/** The SDK's 18-decimal `LegacyDec` on the wire: the integer of value × 10^18, as a string. */
export function decToProto(decimal: string): string {
  const [whole = '0', fraction = ''] = decimal.split('.');
  const atomics = BigInt(whole + fraction.padEnd(18, '0').slice(0, 18));
  return atomics.toString();
}
