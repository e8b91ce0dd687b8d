// Events on the wire: Tendermint 0.34 sends each event attribute's key and value as base64
// (they are bytes in its ABCI); 0.37 and 0.38 send them as text. Results are stored in the
// wire form, so block_results and tx answers embed them as they are, and are read back to
// text for the tx index and searches.
import type { Protocol } from '../core/protocol.ts';
import type { RenderedEvent, RenderedTxResult } from './block.ts';

export interface Wire {
  readonly base64: boolean;
  events(events: readonly RenderedEvent[]): RenderedEvent[];
  result(result: RenderedTxResult): RenderedTxResult;
  /** A stored (wire) result read back to text. */
  textResult(result: RenderedTxResult): RenderedTxResult;
}

const toBase64Text = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const fromBase64Text = (text: string) => Buffer.from(text, 'base64').toString('utf8');

const mapEvents = (events: readonly RenderedEvent[], code: (text: string) => string): RenderedEvent[] =>
  events.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: code(a.key), value: code(a.value), index: a.index })),
  }));

export function wireOf(protocol: Protocol): Wire {
  if (!protocol.base64Attributes) {
    return {
      base64: false,
      events: (events) => events as RenderedEvent[],
      result: (result) => result,
      textResult: (result) => result,
    };
  }
  return {
    base64: true,
    events: (events) => mapEvents(events, toBase64Text),
    result: (result) => ({ ...result, events: mapEvents(result.events, toBase64Text) }),
    textResult: (result) => ({ ...result, events: mapEvents(result.events, fromBase64Text) }),
  };
}
