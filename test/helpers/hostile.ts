// Generated hostile input (fast-check) for an HTTP API under test, as the hostile-input tests
// of the Launchpad API and the Chain API use it: running a property with a readable report,
// the generators of hostile values (numbers, addresses, unicode, SQL fragments, prototype
// names, percent-encoding mistakes, overlong text), query parameters, sending a request and
// the checks every answer must pass, odd methods, unknown paths and raw request lines.
//
// Every generator yields text as it goes into the URL (already percent-encoded, or
// deliberately raw), so malformed encodings reach the server as they are. What differs
// between the APIs (their routes, their own values, their error bodies) the test passes in.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { toBech32 } from '@cosmjs/encoding';
import fc from 'fast-check';
import { type Logger, pino } from 'pino';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomAddress } from './devnet.ts';

/**
 * Runs a property `runs` times (plus `examples`, always tried) and fails with a short
 * report: long generated values are cut so the counterexample stays readable.
 * HOSTILE_SEED=n replays a run; HOSTILE_SCALE=k runs every property k times as often.
 */
export async function holds<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  runs: number,
  examples: Ts[] = [],
) {
  const scale = Number(process.env.HOSTILE_SCALE ?? 1);
  const out = await fc.check(property, {
    numRuns: Math.round(runs * scale),
    examples,
    seed: process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : undefined,
  });
  if (!out.failed) return;
  const cut = (_key: string, v: unknown) =>
    typeof v === 'string' && v.length > 200 ? `${v.slice(0, 120)}… (${v.length} chars)` : v;
  const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  assert.unreachable(
    `failed after ${out.numRuns} runs (HOSTILE_SEED=${out.seed}, path ${out.counterexamplePath}): ${JSON.stringify(out.counterexample, cut)}\n${cause}`,
  );
}

/** `setUp` as the suite's before hook; uvu swallows an error thrown there, so it is said, and every test fails. */
export function setUpBefore<T>(test: Test<T>, setUp: () => Promise<void>): void {
  test.before(async () => {
    await setUp().catch((error) => {
      console.error('Setting up the hostile-input tests failed:', error);
      throw error;
    });
  });
}

/** A logger for the server under test that keeps what it logs as errors (the cause of a 5xx), or from `level` up. */
export function recordErrors(level: 'error' | 'warn' = 'error'): { serverErrors: string[]; logger: Logger } {
  const serverErrors: string[] = [];
  const logger = pino(
    { level, base: undefined },
    new Writable({
      write(chunk, _encoding, done) {
        serverErrors.push(String(chunk));
        done();
      },
    }),
  );
  return { serverErrors, logger };
}

// ---------------------------------------------------------------------------------------
// Encoding.

/** Percent-encodes every UTF-16 unit; a lone surrogate as its 3-byte (WTF-8) form, which is not UTF-8. */
export function enc(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pair =
      c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    if (pair) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(s[i]!);
  }
  return out;
}

/** A plain string either percent-encoded or left raw (the URL parser then encodes what it must; `&`, `=`, `#` stay syntax). */
export const inUrl = (text: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 4, arbitrary: text.map(enc) }, { weight: 1, arbitrary: text });

// ---------------------------------------------------------------------------------------
// Hostile values.

export const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
export const pick = <T>(xs: ArrayLike<T>, i: number): T => xs[i % xs.length]!;
/** One of what `of()` lists when the property runs (the list is filled by the suite's setup). */
export const known = (of: () => string[]) => fc.nat().map((i) => pick(of(), i));

/** Number texts every API is sent: signs, fractions, exponents, bases, separators, other digits, past 2^53 and 2^64, JSON words. */
const NUMBER_TEXTS = [
  '0',
  '-0',
  '-1',
  '1.5',
  '.5',
  '1e2',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  '0b101',
  '1_000',
  '+5',
  ' 5',
  '5 ',
  '00050',
  '٥٠',
  '５０',
  '9007199254740993',
  '18446744073709551616',
  '-9223372036854775809',
  '99999999999999999999999999',
  'null',
  'true',
  '[]',
  '{}',
];

/** Numbers as text: NUMBER_TEXTS and the API's own `texts`, any safe integer or double, big integers within ±`bigIntBound`, and `more`. */
export const numbersWith = ({
  texts,
  bigIntBound,
  more = [],
}: {
  texts: string[];
  bigIntBound: bigint;
  more?: fc.Arbitrary<string>[];
}) =>
  fc.oneof(
    fc.constantFrom(...NUMBER_TEXTS, ...texts),
    fc.integer({ min: -(2 ** 53), max: 2 ** 53 }).map(String),
    fc.double().map(String),
    fc.bigInt({ min: -bigIntBound, max: bigIntBound }).map(String),
    ...more,
  );

/** A valid bech32 address broken: a character flipped, upper case, cut, appended to, no separator, doubled, padded. */
const bech32Mangled = (valid: fc.Arbitrary<string>) =>
  fc
    .tuple(valid, fc.nat(), fc.constantFrom('flip', 'upper', 'truncate', 'append', 'no-separator', 'double', 'space'))
    .map(([a, i, how]) => {
      const at = 7 + (i % (a.length - 7));
      switch (how) {
        case 'flip':
          return a.slice(0, at) + pick(BECH32, BECH32.indexOf(a[at]!) + 1 + (i % 31)) + a.slice(at + 1);
        case 'upper':
          return a.toUpperCase();
        case 'truncate':
          return a.slice(0, at);
        case 'append':
          return a + pick(BECH32, i);
        case 'no-separator':
          return a.replace('1', '');
        case 'double':
          return `${a},${a}`;
        default:
          return ` ${a} `;
      }
    });

/**
 * bech32-like and random addresses: the API's `known` ones, random accounts, valid ones of
 * other `prefixes` and byte `lengths`, `mangled` ones broken (checksums, case, lengths),
 * bech32 characters after `native1`, and any string.
 */
export const addressesWith = ({
  known,
  prefixes,
  lengths,
  mangled,
}: {
  known: fc.WeightedArbitrary<string>[];
  prefixes: string[];
  lengths: number[];
  mangled: fc.Arbitrary<string>;
}) =>
  fc.oneof(
    ...known,
    { weight: 1, arbitrary: fc.constant(null).map(() => randomAddress()) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...prefixes), fc.constantFrom(...lengths)).map(([prefix, n]) => {
        try {
          return toBech32(prefix, randomBytes(n), 1023);
        } catch {
          return `${prefix}1${randomBytes(n).toString('hex')}`;
        }
      }),
    },
    { weight: 3, arbitrary: bech32Mangled(mangled) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: fc.constantFrom(...BECH32), minLength: 0, maxLength: 120 })
        .map((s) => `native1${s}`),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  );

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Binary strings, lone surrogates, NUL, BOM, bidi and combining characters, line breaks; a `known` value with one appended. */
export const unicodeWith = (known: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.oneof(
        loneSurrogate,
        fc.constantFrom('\0', '\uFFFF', '\uFEFF', '\u202E', 'é', '😀', '\u0301', '\n', '\r\n', '\t'),
      ),
      maxLength: 12,
    }),
    fc.tuple(known, fc.constantFrom('\0', '\uD800', '\uDFFF', '\u200B', 'ı')).map(([a, c]) => a + c),
  );

/** SQL fragments: quotes, comments, placeholders, casts, subqueries; `own` ones name the API's tables and columns. */
export const sqlWith = (...own: string[]) =>
  fc.constantFrom(
    "' OR '1'='1",
    '1; SELECT pg_sleep(10)',
    '1) OR (1=1',
    '$1',
    '$2::text',
    "\\'",
    '\\',
    "%' --",
    "E'\\x00'",
    "'||(SELECT version())||'",
    ...own,
  );

/** Property names every object has or a promise reads, and `own` ones. */
export const protoKeysWith = (...own: string[]) =>
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'then',
    'length',
    ...own,
  );

/** Raw URL text that is not a correct percent-encoding, or is URL syntax inside a value; and `own` ones. */
export const encodingMistakesWith = (...own: string[]) =>
  fc.constantFrom(
    '%',
    '%%',
    '%G1',
    '%2',
    '%E0%A4',
    '%C0%80',
    '%ED%A0%80',
    '%F4%90%80%80',
    '%FF%FE',
    '%u0041',
    '%25%',
    '%00',
    '%0A',
    '%0D%0A',
    '+',
    '%2B',
    '%20',
    '&',
    '=',
    '==',
    '?',
    '#',
    '%23',
    '%26',
    '%3D',
    ';',
    '..',
    '%2e%2e',
    '%2F',
    '/',
    '\\',
    '[]',
    ',',
    ...own,
  );

/** One of `units` repeated to `minLength`–14,000 characters (an encoded unit counted by its three). */
export const overlongFrom = (minLength: number, units: string[]) =>
  fc
    .tuple(fc.integer({ min: minLength, max: 14_000 }), fc.constantFrom(...units))
    .map(([n, unit]) => unit.repeat(unit.startsWith('%') ? Math.ceil(n / 3) : n));

export interface HostileParts {
  numbers: fc.Arbitrary<string>;
  addresses: fc.Arbitrary<string>;
  /** the API's own kinds of value (dates, hashes, base64…), as they go into the URL, with their weights */
  own: fc.WeightedArbitrary<string>[];
  unicode: fc.Arbitrary<string>;
  sql: fc.Arbitrary<string>;
  protoKeys: fc.Arbitrary<string>;
  encodingMistakes: fc.Arbitrary<string>;
  overlong: fc.Arbitrary<string>;
}

/** `hostile(valid?)`: anything hostile, for any parameter; `valid` adds good values of that parameter so the others are reached too. */
export const hostileFrom =
  ({ numbers, addresses, own, unicode, sql, protoKeys, encodingMistakes, overlong }: HostileParts) =>
  (valid?: fc.Arbitrary<string>) =>
    fc.oneof(
      ...(valid ? [{ weight: 6, arbitrary: valid }] : []),
      { weight: 3, arbitrary: inUrl(numbers) },
      { weight: 3, arbitrary: inUrl(addresses) },
      ...own,
      { weight: 2, arbitrary: unicode.map(enc) },
      { weight: 1, arbitrary: inUrl(sql) },
      { weight: 1, arbitrary: protoKeys },
      { weight: 2, arbitrary: encodingMistakes },
      { weight: 1, arbitrary: overlong },
      { weight: 1, arbitrary: fc.constant('') },
    );

// ---------------------------------------------------------------------------------------
// Query parameters.

export type Param = [name: string, values: string[]];

/**
 * `param(name, value)`: a parameter's occurrences in the query: absent, once, or repeated;
 * sometimes as a bare key or with a mangled name (`[]`, upper case, NUL, a space, and the
 * API's `own` manglings of `name`).
 */
export const paramWith =
  (own: (name: string) => string[] = () => []) =>
  (name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Param> =>
    fc
      .tuple(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 8, arbitrary: fc.constant(1) },
          { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) },
        ),
        fc.array(value, { minLength: 3, maxLength: 3 }),
        fc.oneof(
          { weight: 12, arbitrary: fc.constant(name) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(`${name}[]`, name.toUpperCase(), `${name}%00`, ` ${name}`, ...own(name)),
          },
        ),
        fc.boolean(),
      )
      .map(([count, values, key, bare]) => [key, bare && count === 1 ? ['\u0000bare'] : values.slice(0, count)]);

/** Up to two parameters of hostile names and values. */
export const junkFrom = (hostile: () => fc.Arbitrary<string>) =>
  fc.array(fc.tuple(hostile(), hostile()), { maxLength: 2 }).map((pairs) => pairs.map(([k, v]): Param => [k, [v]]));

export function query(params: Param[]): string {
  const parts = params.flatMap(([name, values]) => values.map((v) => (v === '\u0000bare' ? name : `${name}=${v}`)));
  return parts.length ? `?${parts.join('&')}` : '';
}

// ---------------------------------------------------------------------------------------
// Requests and the checks every answer must pass.

export interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
export interface Answer {
  status: number;
  contentType: string;
  text: string;
  /** Its Cache-Control header, '' when it has none. */
  cacheControl: string;
}

export const describe = (r: Request) =>
  `${r.method ?? 'GET'} ${r.path.length > 300 ? `${r.path.slice(0, 300)}… (${r.path.length} chars)` : r.path}${r.headers ? ` ${JSON.stringify(r.headers).slice(0, 200)}` : ''}${r.body === undefined ? '' : ` body ${JSON.stringify(r.body.slice(0, 200))}`}`;

/** Sends a request to the server at `base`; an event stream is read up to its headers and then abandoned. */
export async function send(base: string, r: Request): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within 10 s to ${describe(r)}`)), 10_000);
  try {
    const res = await fetch(`${base}${r.path}`, {
      method: r.method ?? 'GET',
      headers: r.headers,
      body: r.body,
      signal: abort.signal,
      redirect: 'manual',
    });
    const contentType = res.headers.get('content-type') ?? '';
    const cacheControl = res.headers.get('cache-control') ?? '';
    if (contentType.startsWith('text/event-stream')) {
      abort.abort();
      return { status: res.status, contentType, text: '', cacheControl };
    }
    return { status: res.status, contentType, text: await res.text(), cacheControl };
  } catch (error) {
    const cause = (error as Error & { cause?: Error & { code?: string } }).cause;
    throw new Error(
      `${describe(r)}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message})` : ''}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** One request written as raw bytes to the server at `base`; resolves with the answer's status, content type and body. */
export function rawRequest(base: string, bytes: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 5 s to ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
    }, 5000);
    socket.on('data', (c) => {
      chunks.push(c);
      // an event stream does not end: its head is all there is to read
      const seen = Buffer.concat(chunks).toString('latin1');
      if (seen.includes('\r\n\r\n') && /^content-type:\s*text\/event-stream/im.test(seen.split('\r\n\r\n')[0]!))
        socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
      const cacheControl = /^cache-control:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
      let body = rest.join('\r\n\r\n');
      if (/^transfer-encoding:\s*chunked/im.test(head))
        body = body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '');
      resolve({ status, contentType, text: body, cacheControl });
    });
  });
}

export interface AnswerRules {
  /** what the server logged as errors, shown with an answer of a status it may not have */
  serverErrors: string[];
  /** statuses besides the 2xx and 4xx ones an answer may have */
  alsoAllowed?: number[];
  /** whether an answer rightly is not JSON (asserting what it is instead) */
  notJson?: (a: Answer, what: string) => boolean;
}

/**
 * What every answer satisfies: a 2xx or 4xx (or `alsoAllowed`), an error kept by no HTTP
 * cache (`Cache-Control: no-store`), no body for a HEAD or a 204, otherwise JSON (unless
 * `notJson`). Resolves to the parsed body, undefined when there is none.
 */
export function expectAnswer(r: Request, a: Answer, { serverErrors, alsoAllowed = [], notJson }: AnswerRules): unknown {
  const what = describe(r);
  const logged = serverErrors.length ? `\nserver log: ${serverErrors.at(-1)!.slice(0, 2000)}` : '';
  assert.ok(
    (a.status >= 200 && a.status < 500) || alsoAllowed.includes(a.status),
    `${what} answered ${a.status} ${a.text.slice(0, 300)}${logged}`,
  );
  if (a.status >= 400) assert.is(a.cacheControl, 'no-store', `${what} answered ${a.status}: kept by no cache`);
  if ((r.method ?? 'GET') === 'HEAD' || a.status === 204) {
    assert.is(a.text, '', `${what}: no body`);
    return undefined;
  }
  if (notJson?.(a, what)) return undefined;
  assert.is(
    a.contentType,
    'application/json; charset=utf-8',
    `${what} answered ${a.status} as ${a.contentType}: ${a.text.slice(0, 300)}`,
  );
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    assert.unreachable(`${what} answered ${a.status} with a body that is not JSON: ${a.text.slice(0, 300)}`);
  }
  return body;
}

/** `check(r)`: sends `r` to the server at `base()` and resolves with the answer once `expectSane` passed it. */
export const checkWith =
  (base: () => string, expectSane: (r: Request, a: Answer) => void) =>
  async (r: Request): Promise<Answer> => {
    const a = await send(base(), r);
    expectSane(r, a);
    return a;
  };

// ---------------------------------------------------------------------------------------
// Paths, methods and request lines.

/** Paths of one to `maxSegments` hostile segments (route names among them, `.`, `..`, empty), some with a trailing slash. */
export const unknownPaths = (
  hostile: (valid?: fc.Arbitrary<string>) => fc.Arbitrary<string>,
  names: string[],
  maxSegments: number,
) =>
  fc
    .tuple(
      fc.array(hostile(fc.constantFrom(...names, '.', '..', '', '%2e', '%2F')), {
        minLength: 1,
        maxLength: maxSegments,
      }),
      fc.boolean(),
    )
    .map(([segments, trailing]) => {
      const path = `/${segments.join('/')}${trailing ? '/' : ''}`;
      return path.startsWith('//') ? `/x${path}` : path;
    });

/**
 * POST, PUT, DELETE, PATCH, OPTIONS or HEAD to one of `paths`, with one of `bodies` or none
 * (never with HEAD), and sometimes printable text in every header of `corsHeaders`.
 */
export const oddMethodRequests = ({
  paths,
  bodies,
  corsHeaders,
}: {
  paths: fc.Arbitrary<string>;
  bodies: fc.Arbitrary<string>;
  corsHeaders: string[];
}): fc.Arbitrary<Request> =>
  fc
    .tuple(
      fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      paths,
      fc.option(bodies, { nil: undefined }),
      fc.option(
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
        { nil: undefined },
      ),
    )
    .map(([method, path, body, header]) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (header !== undefined) for (const name of corsHeaders) headers[name] = header;
      return { method, path, headers, body: method === 'HEAD' ? undefined : body };
    });

/**
 * The property that every request line the HTTP parser refuses, and every request target
 * fetch cannot send, has a sane answer (by `expectSane`), run `runs` times against the server
 * at `base`. The targets: `*`, `plain` (a route without parameters) absolute, doubled, with
 * control characters, a space or NUL, an empty one, the API's `targets`, and any bytes after
 * one of `prefixes`. The methods: GET, the API's `methods`, HEAD and ones that do not exist;
 * the versions: 1.1, 1.0 and ones that do not exist; `headers`: the API's own bad headers.
 */
export function refusedRequestLines({
  base,
  plain,
  targets,
  prefixes,
  methods = [],
  headers,
  expectSane,
  runs,
}: {
  base: string;
  plain: string;
  targets: string[];
  prefixes: string[];
  methods?: string[];
  headers: string[];
  expectSane: (r: Request, a: Answer) => void;
  runs: number;
}) {
  const target = fc.oneof(
    fc.constantFrom(
      '*',
      `http://127.0.0.1${plain}`,
      `${plain}?x=\u0000`,
      `${plain}\u0001`,
      `${plain} x`,
      '',
      `/${plain}`,
      ...targets,
    ),
    fc.tuple(fc.constantFrom(...prefixes), fc.string({ unit: 'binary', maxLength: 20 })).map(([p, s]) => p + s),
  );
  const method = fc.constantFrom('GET', 'GET', ...methods, 'HEAD', 'FOO', 'get', 'G\u0000T', 'CONNECT', 'TRACE', '');
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1', '');
  const extraHeader = fc.constantFrom(
    '',
    'Bad Header\r\n',
    'Content-Length: -1\r\n',
    'Content-Length: 1\r\nContent-Length: 2\r\n',
    'Transfer-Encoding: chunked\r\n',
    ' folded: x\r\n',
    'X: \u00ff\r\n',
    ...headers,
  );
  return holds(
    fc.asyncProperty(method, target, version, extraHeader, async (m, t, v, h) => {
      const line = `${m} ${t}${v ? ` ${v}` : ''}`;
      const a = await rawRequest(
        base,
        Buffer.from(`${line}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${h}\r\n`, 'utf8'),
      );
      // a request the parser refused is answered like a GET (its method is not known)
      const r: Request = { method: m === 'HEAD' && a.text === '' ? 'HEAD' : 'GET', path: JSON.stringify(line + h) };
      assert.ok(a.status !== 0, `${describe(r)}: the connection closed without an answer`);
      expectSane(r, a);
    }),
    runs,
  );
}
