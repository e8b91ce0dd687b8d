// HTTP GETs of JSON for tests: the status, the headers and the parsed body; and answers as
// they are on the wire (their bytes, compressed or not), with the assertions of how an
// answer kept as bytes is sent in each encoding.
import http from 'node:http';
import zlib from 'node:zlib';
import * as assert from 'uvu/assert';

export interface JsonAnswer<Body> {
  status: number;
  headers: Headers;
  /** The parsed body; undefined when the body is empty. */
  body: Body;
}

/** GETs `url` and parses the body as JSON (an empty body is undefined). */
// biome-ignore lint/suspicious/noExplicitAny: by default the tests read whatever fields they assert on
export async function getJson<Body = any>(
  url: string,
  headers: Record<string, string> = {},
): Promise<JsonAnswer<Body>> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body's bytes as sent (gzip when Content-Encoding says so). */
  body: Buffer;
}

/** GETs `url` with exactly these headers (none added: no Accept-Encoding unless given), the body as sent. */
export function getRaw(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const STRONG_ETAG = /^"[A-Za-z0-9_-]{22}"$/;

/**
 * Asserts how an answer kept as bytes (over 1 KiB) is sent: gzipped with a weak ETag to a
 * client that takes gzip, the same JSON bytes as they are with the strong ETag to one that does
 * not (or refuses gzip), `Vary: Accept-Encoding` on both, and 304 to a client holding either
 * form, with the ETag of the form that request would be sent. Returns the JSON's bytes and the
 * strong ETag.
 */
export async function assertEncodings(
  url: string,
  /** The most its gzip may be of its JSON (base64 of signed txs, random bytes, shrinks less than text). */
  { gzipAtMost = 0.5 }: { gzipAtMost?: number } = {},
): Promise<{ json: Buffer; etag: string }> {
  const gzipped = await getRaw(url, { 'Accept-Encoding': 'gzip, deflate, br' });
  assert.is(gzipped.status, 200);
  assert.is(gzipped.headers['content-encoding'], 'gzip', 'gzip to a client that takes it');
  assert.is(gzipped.headers.vary, 'Accept-Encoding');
  const weak = gzipped.headers.etag!;
  assert.match(weak, /^W\//, 'the gzip form: a weak ETag');
  const etag = weak.slice(2);
  assert.match(etag, STRONG_ETAG);
  const json = zlib.gunzipSync(gzipped.body);
  assert.ok(
    json.length > 1024 && gzipped.body.length < json.length * gzipAtMost,
    `${json.length} bytes, ${gzipped.body.length} gzipped`,
  );
  const plainRequests: Record<string, string>[] = [
    {},
    { 'Accept-Encoding': 'gzip;q=0, identity' },
    { 'Accept-Encoding': 'br' },
  ];
  for (const headers of plainRequests) {
    const plain = await getRaw(url, headers);
    const what = JSON.stringify(headers);
    assert.is(plain.status, 200, what);
    assert.is(plain.headers['content-encoding'], undefined, what);
    assert.is(plain.headers.vary, 'Accept-Encoding', what);
    assert.is(plain.headers.etag, etag, `${what}: the strong ETag of the JSON's bytes`);
    assert.ok(plain.body.equals(json), `${what}: the same bytes, inflated`);
    assert.is(Number(plain.headers['content-length']), json.length, what);
  }
  for (const held of [etag, weak]) {
    for (const encoding of ['gzip', 'identity']) {
      const again = await getRaw(url, { 'If-None-Match': held, 'Accept-Encoding': encoding });
      assert.is(again.status, 304, `${held} ${encoding}`);
      assert.is(again.body.length, 0);
      // the ETag a 200 to this request would carry (RFC 9110 15.4.5), whichever form is held
      assert.is(
        again.headers.etag,
        encoding === 'gzip' ? weak : etag,
        `${held} ${encoding}: the ETag of the form sent`,
      );
      assert.is(again.headers.vary, 'Accept-Encoding');
    }
  }
  // a cache holding both forms names both (or `*`): the 304 names the form this request gets
  for (const [held, encoding, named] of [
    [`${weak}, ${etag}`, 'gzip', weak],
    [`${weak}, ${etag}`, 'identity', etag],
    [`${etag}, ${weak}`, 'gzip', weak],
    ['*', 'gzip', weak],
    ['*', 'identity', etag],
  ]) {
    const again = await getRaw(url, { 'If-None-Match': held!, 'Accept-Encoding': encoding! });
    assert.is(again.status, 304, `${held} ${encoding}`);
    assert.is(again.headers.etag, named, `${held} ${encoding}`);
  }
  return { json, etag };
}
