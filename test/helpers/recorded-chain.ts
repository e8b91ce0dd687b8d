// A chain made of recorded responses of real public nodes (test/fixtures/real-chains/,
// SOURCES.md there), served over CometBFT's JSON-RPC as a node of that version would serve
// them: `status`, `block`, `block_results`, `blockchain`, `tx` and `health`, with the
// errors real nodes give for heights they lack. Like many providers, it refuses the
// websocket. Its faults are a provider's: rate limits with Retry-After, a body that comes
// slowly, a node behind the others, pruned heights, block results not kept or not stored yet
// (a block still executing), no tx index.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/real-chains');

// biome-ignore lint/suspicious/noExplicitAny: recorded JSON, read field by field
type Json = any;

export interface RecordedBlock {
  height: number;
  /** The `block` result. */
  block: Json;
  /** The `block_results` result, as recorded (its text is served as it is). */
  resultsText: string;
}

/** A recorded file's `result` (files hold the whole JSON-RPC envelope, or the result alone). */
function resultText(text: string): string {
  const json = JSON.parse(text);
  return 'jsonrpc' in json && 'result' in json ? JSON.stringify(json.result) : text;
}

/** A `block` and `block_results` pair of recorded files. */
export function recordedBlock(blockFile: string, resultsFile: string): RecordedBlock {
  const block = JSON.parse(resultText(readFileSync(path.join(FIXTURES, blockFile), 'utf8')));
  const resultsText = resultText(readFileSync(path.join(FIXTURES, resultsFile), 'utf8'));
  return { height: Number(block.block.header.height), block, resultsText };
}

/** The recorded chains the tests serve, by protocol version. */
export const RECORDED = {
  /** Tendermint 0.34 (injective-1): base64 attributes, begin/end block events, per-message logs. */
  tm034: () => ({
    version: '0.34.14',
    blocks: [recordedBlock('tm034-injective-1-block-4555980.json', 'tm034-injective-1-block_results-4555980.json')],
    prefix: 'inj',
  }),
  /** CometBFT 0.37 (dydx-mainnet-1): two consecutive blocks. */
  comet037: () => ({
    version: '0.37.2',
    blocks: [9, 10].map((h) =>
      recordedBlock(`comet037-dydx-mainnet-1-block-${h}.json`, `comet037-dydx-mainnet-1-block_results-${h}.json`),
    ),
    prefix: 'dydx',
  }),
  /** CometBFT 0.37 (archway-1), a CosmWasm chain: one block and its results from one archived bundle. */
  comet037wasm: () => {
    const [item] = JSON.parse(
      readFileSync(path.join(FIXTURES, 'comet037-archway-1-kyve_bundle-block+block_results-4326863.json'), 'utf8'),
    );
    const block = item.value.block;
    return {
      version: '0.37.4',
      blocks: [
        { height: Number(block.block.header.height), block, resultsText: JSON.stringify(item.value.block_results) },
      ],
      prefix: 'archway',
    };
  },
  /** CometBFT 0.38 (celestia): finalize_block_events, msg_index on events. */
  comet038: () => ({
    version: '0.38.17',
    blocks: [recordedBlock('comet038-celestia-block-8880520.json', 'comet038-celestia-block_results-8880520.json')],
    prefix: 'celestia',
  }),
} as const;

export interface RecordedChainOptions {
  /** `node_info.version` (decides the protocol the service reads). */
  version: string;
  blocks: RecordedBlock[];
  /** How many of the blocks the node has reached (a lagging node): default all. Mutable on the returned chain. */
  reached?: number;
  /** The lowest height the node keeps (a pruned node): default the lowest recorded. */
  earliest?: number;
  /** The node keeps no block results (CometBFT's discard_abci_responses). */
  discardResults?: boolean;
  /**
   * The block at `height` has no results for its first `times` requests (Infinity: ever), as
   * CometBFT answers while it executes a block it stored, or once it pruned the results apart.
   */
  resultsMissing?: { height: number; times: number };
  /**
   * Answer the first `count` requests (of `method`, when given) with 429 and this Retry-After
   * (or with `status`: a provider's 401 or 503).
   */
  rateLimit?: {
    count: number;
    retryAfter: string /** only requests of this method */;
    method?: string;
    status?: number;
  };
  /** Send each `block_results` body in `chunks` pieces, `delayMs` apart. */
  slowResults?: { chunks: number; delayMs: number };
  /** `status` says a tip this many blocks above what `block` serves (a load balancer's backends apart). */
  statusAhead?: number;
  /** The node indexes no txs (CometBFT's `tx_index.indexer = "null"`, common at providers): `tx` refuses. */
  txIndexDisabled?: boolean;
  /** `abci_query` answers by path (the protobuf value); any other path is "unknown query path". */
  abci?: Record<string, Uint8Array>;
}

export interface RecordedChain {
  url: string;
  chainId: string;
  options: RecordedChainOptions;
  /** Every request, in order: the method and when it came. */
  requests: { method: string; at: number; status: number }[];
  /** Websocket upgrades asked for (and refused). */
  upgrades: number;
  close(): Promise<void>;
}

const upperHex = (b: Buffer) => b.toString('hex').toUpperCase();
export const txHashOf = (base64: string) =>
  upperHex(createHash('sha256').update(Buffer.from(base64, 'base64')).digest());

function rpcError(id: unknown, data: string) {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error', data } };
}

export async function startRecordedChain(options: RecordedChainOptions): Promise<RecordedChain> {
  const blocks = new Map(options.blocks.map((b) => [b.height, b]));
  const heights = [...blocks.keys()].sort((a, b) => a - b);
  const first = heights[0]!;
  const chainId = String(options.blocks[0]!.block.block.header.chain_id);
  const requests: RecordedChain['requests'] = [];
  let rateLimited = 0;

  const tip = () => heights[Math.min(heights.length, options.reached ?? heights.length) - 1] ?? first - 1;
  const earliest = () => options.earliest ?? first;
  /** The block at a height, or the error a node gives for a height it lacks. */
  const lookup = (raw: unknown): RecordedBlock | string => {
    const height = raw === undefined || raw === null || raw === '' ? tip() : Number(raw);
    if (height > tip()) return `height ${height} must be less than or equal to the current blockchain height ${tip()}`;
    if (height < earliest() || !blocks.has(height))
      return `height ${height} is not available, lowest height is ${earliest()}`;
    return blocks.get(height)!;
  };
  const meta = (b: RecordedBlock) => ({
    block_id: b.block.block_id,
    block_size: '1000',
    header: b.block.block.header,
    num_txs: String(b.block.block.data.txs?.length ?? 0),
  });

  /** The answer to one call: a JSON value, or pre-rendered result text. */
  function answer(method: string, params: Json): { result?: Json; resultText?: string; error?: string } {
    switch (method) {
      case 'health':
        return { result: {} };
      case 'status': {
        const latest = blocks.get(tip());
        const low = blocks.get(earliest());
        return {
          result: {
            node_info: {
              protocol_version: { p2p: '8', block: '11', app: '0' },
              id: 'f'.repeat(40),
              listen_addr: 'tcp://0.0.0.0:26656',
              network: chainId,
              version: options.version,
              channels: '40202122233038606100',
              moniker: 'recorded',
              other: { tx_index: 'on', rpc_address: 'tcp://0.0.0.0:26657' },
            },
            sync_info: {
              latest_block_hash: latest?.block.block_id.hash ?? '',
              latest_app_hash: latest?.block.block.header.app_hash ?? '',
              latest_block_height: String(tip() + (options.statusAhead ?? 0)),
              latest_block_time: latest?.block.block.header.time ?? '1970-01-01T00:00:00Z',
              earliest_block_hash: low?.block.block_id.hash ?? '',
              earliest_app_hash: low?.block.block.header.app_hash ?? '',
              earliest_block_height: String(earliest()),
              earliest_block_time: low?.block.block.header.time ?? '1970-01-01T00:00:00Z',
              catching_up: false,
            },
            validator_info: {
              address: '0'.repeat(40),
              pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.alloc(32).toString('base64') },
              voting_power: '0',
            },
          },
        };
      }
      case 'block': {
        const b = lookup(params.height);
        return typeof b === 'string' ? { error: b } : { result: b.block };
      }
      case 'block_results': {
        const b = lookup(params.height);
        if (typeof b === 'string') return { error: b };
        const missing = options.resultsMissing;
        if (missing && missing.height === b.height && missing.times > 0) {
          missing.times--;
          return { error: `could not find results for height #${b.height}` };
        }
        if (options.discardResults)
          return {
            error: options.version.startsWith('0.38')
              ? 'node is not persisting finalize block responses'
              : 'node is not persisting abci responses',
          };
        return { resultText: b.resultsText };
      }
      case 'blockchain': {
        const min = Number(params.minHeight ?? first);
        const max = Math.min(Number(params.maxHeight ?? tip()), tip());
        const metas = heights.filter((h) => h >= Math.max(min, earliest()) && h <= max).reverse();
        return { result: { last_height: String(tip()), block_metas: metas.map((h) => meta(blocks.get(h)!)) } };
      }
      case 'tx': {
        if (options.txIndexDisabled) return { error: 'transaction indexing is disabled' };
        const hash = upperHex(Buffer.from(String(params.hash ?? ''), 'base64'));
        for (const h of heights.filter((x) => x <= tip())) {
          const b = blocks.get(h)!;
          const txs: string[] = b.block.block.data.txs ?? [];
          const index = txs.findIndex((t) => txHashOf(t) === hash);
          if (index < 0) continue;
          const results = JSON.parse(b.resultsText).txs_results;
          return { result: { hash, height: String(h), index, tx_result: results[index], tx: txs[index] } };
        }
        return { error: `tx (${hash}) not found` };
      }
      case 'abci_query': {
        const value = options.abci?.[String(params.path ?? '')];
        if (value)
          return {
            result: {
              response: {
                code: 0,
                log: '',
                info: '',
                index: '0',
                key: null,
                value: Buffer.from(value).toString('base64'),
                proofOps: null,
                height: String(tip()),
                codespace: '',
              },
            },
          };
        return {
          result: {
            response: {
              code: 6,
              log: 'unknown query path',
              info: '',
              index: '0',
              height: String(tip()),
              codespace: 'sdk',
            },
          },
        };
      }
      default:
        return { error: `Method not found: ${method}` };
    }
  }

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      let request: Json;
      try {
        request = JSON.parse(body || '{}');
      } catch {
        res.writeHead(400).end();
        return;
      }
      const method = String(request.method ?? new URL(req.url ?? '/', 'http://x').pathname.slice(1));
      const limit = options.rateLimit;
      if (limit && rateLimited < limit.count && (limit.method === undefined || limit.method === method)) {
        rateLimited++;
        const status = limit.status ?? 429;
        requests.push({ method, at: Date.now(), status });
        res.writeHead(status, { 'Retry-After': limit.retryAfter, 'Content-Type': 'text/plain' });
        res.end(http.STATUS_CODES[status]);
        return;
      }
      requests.push({ method, at: Date.now(), status: 200 });
      const out = answer(method, request.params ?? {});
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (out.error) return void res.end(JSON.stringify(rpcError(request.id, out.error)));
      const text =
        out.resultText !== undefined
          ? `{"jsonrpc":"2.0","id":${JSON.stringify(request.id ?? -1)},"result":${out.resultText}}`
          : JSON.stringify({ jsonrpc: '2.0', id: request.id ?? -1, result: out.result });
      const slow = method === 'block_results' ? options.slowResults : undefined;
      if (!slow) return void res.end(text);
      const size = Math.ceil(text.length / slow.chunks);
      for (let i = 0; i < text.length && !res.destroyed; i += size) {
        res.write(text.slice(i, i + size));
        await new Promise((resolve) => setTimeout(resolve, slow.delayMs));
      }
      res.end();
    });
  });
  const chain: RecordedChain = {
    url: '',
    chainId,
    options,
    requests,
    upgrades: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  // like many providers: no websocket
  server.on('upgrade', (_req, socket) => {
    chain.upgrades++;
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  chain.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return chain;
}
