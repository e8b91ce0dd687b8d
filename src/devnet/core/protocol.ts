// The node and application versions the devnet can answer as, and what each one changes in
// what a client sees: CometBFT 0.34 (with Cosmos SDK 0.45), 0.37 (SDK 0.47) and 0.38
// (SDK 0.50). The chain underneath is the same; the events, logs and RPC shapes differ.

export type CometVersion = '0.34' | '0.37' | '0.38';
export const COMET_VERSIONS: readonly CometVersion[] = ['0.34', '0.37', '0.38'];
export const DEFAULT_COMET_VERSION: CometVersion = '0.38';

export interface Protocol {
  readonly comet: CometVersion;
  /** `node_info.version`; cosmjs picks its client from the `0.37.`/`0.38.` prefix (0.37's for anything else). */
  readonly nodeVersion: string;
  /** The SDK version the tendermint base service names. */
  readonly sdkVersion: string;
  /** Tendermint 0.34 sends event attribute keys and values as base64 (they are bytes in its ABCI). */
  readonly base64Attributes: boolean;
  /** A block's own events: `begin_block_events` and `end_block_events` (ABCI 1), or `finalize_block_events` (ABCI 2). */
  readonly blockEvents: 'begin-end' | 'finalize';
  /**
   * The event that opens each message's events: SDK 0.45 writes `message {action}`, 0.47
   * `message {action, sender, module}`, 0.50 the same followed by `msg_index` on every event.
   */
  readonly messageEvent: 'action' | 'action-sender-module';
  /** SDK 0.50 appends `msg_index` to every event a message emits. */
  readonly msgIndex: boolean;
  /**
   * A successful tx's log: the JSON of its ABCIMessageLogs, each message's events flattened by
   * type and sorted (SDK 0.45) or as emitted (SDK 0.47); empty from SDK 0.50 on.
   */
  readonly messageLogs: 'flattened' | 'as-emitted' | 'none';
  /** SDK 0.47 and later add `mode` (BeginBlock, EndBlock) to every event of the block's own phases. */
  readonly blockEventMode: boolean;
  /** A tx result's data: TxMsgData.data (MsgData per message, SDK 0.45) or TxMsgData.msg_responses (0.46+). */
  readonly txMsgData: 'msg-data' | 'msg-responses';
  /** cosmos.reflection.v1 (SDK 0.47+). */
  readonly reflection: boolean;
}

const PROTOCOLS: Record<CometVersion, Protocol> = {
  '0.34': {
    comet: '0.34',
    nodeVersion: '0.34.27',
    sdkVersion: 'v0.45.16',
    base64Attributes: true,
    blockEvents: 'begin-end',
    messageEvent: 'action',
    msgIndex: false,
    messageLogs: 'flattened',
    blockEventMode: false,
    txMsgData: 'msg-data',
    reflection: false,
  },
  '0.37': {
    comet: '0.37',
    nodeVersion: '0.37.4',
    sdkVersion: 'v0.47.10',
    base64Attributes: false,
    blockEvents: 'begin-end',
    messageEvent: 'action-sender-module',
    msgIndex: false,
    messageLogs: 'as-emitted',
    blockEventMode: true,
    txMsgData: 'msg-responses',
    reflection: true,
  },
  '0.38': {
    comet: '0.38',
    nodeVersion: '0.38.17',
    sdkVersion: 'v0.50.13',
    base64Attributes: false,
    blockEvents: 'finalize',
    messageEvent: 'action-sender-module',
    msgIndex: true,
    messageLogs: 'none',
    blockEventMode: true,
    txMsgData: 'msg-responses',
    reflection: true,
  },
};

export const protocolOf = (version: CometVersion): Protocol => PROTOCOLS[version];

/** A CometBFT version the devnet speaks, or a RangeError naming `source` and the versions it knows. */
export function parseCometVersion(value: unknown, source: string): CometVersion {
  if (typeof value === 'string' && (COMET_VERSIONS as readonly string[]).includes(value)) return value as CometVersion;
  throw new RangeError(`${source} must be one of ${COMET_VERSIONS.join(', ')}; got ${JSON.stringify(value)}`);
}
