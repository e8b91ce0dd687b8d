// The dashboard (docs/architecture.md, "The dashboard"): the pages `/`, `/tokens/:address`
// and `/api/docs`, and their scripts and styles from src/api/launchpad/web/ with the charting
// library from its installed package, all served before the rate limit (they are not counted).
// The pages read the public API and the SSE feed from the browser like any other client.
//
// Caching: assets live under /static/<version>/, where the version is a hash of their
// contents (and of the library's version), so they are cached for a year as immutable; the
// pages name the current version and are revalidated on every load (ETag, 304).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import sirv from 'sirv';
import { namesTag } from '../http/http-cache.ts';

const WEB_DIR = path.join(import.meta.dirname, 'web');
const ASSETS_DIR = path.join(WEB_DIR, 'static');
const PAGES_DIR = path.join(WEB_DIR, 'pages');
const CHART_PACKAGE = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
/** The library's standalone ES module build (no dependencies to resolve in the browser). */
export const CHART_FILE = 'lightweight-charts.standalone.production.mjs';

/** Where the browser may load from and connect to: this origin only (token images are links, never loaded). */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Each page: its path, its route label (for the metrics) and its file in web/pages/. */
const PAGES = [
  { pattern: /^\/$/, route: '/', file: 'index.html' },
  { pattern: /^\/tokens\/[^/]+$/, route: '/tokens/:address', file: 'token.html' },
  { pattern: /^\/api\/docs$/, route: '/api/docs', file: 'docs.html' },
];

/** The paths this middleware answers, with their route labels, for the server's route table. */
export const WEB_ROUTES: [RegExp, string][] = [
  ...PAGES.map(({ pattern, route }): [RegExp, string] => [pattern, route]),
  [/^\/static\//, '/static/*'],
];

function contentsHash(): string {
  const hash = createHash('sha256');
  for (const dir of [ASSETS_DIR, PAGES_DIR])
    for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(path.join(dir, name)));
  hash.update(readFileSync(CHART_PACKAGE));
  return hash.digest('hex').slice(0, 12);
}

type Middleware = (req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) => void;

/** The pages and their assets, as one middleware placed before the rate limit. */
export function createWebPages(): Middleware {
  const version = contentsHash();
  const prefix = `/static/${version}/`;
  const vendorPrefix = `${prefix}vendor/`;
  const pages = new Map(
    PAGES.map(({ file }) => {
      const html = readFileSync(path.join(PAGES_DIR, file), 'utf8').replaceAll('%STATIC%', prefix.slice(0, -1));
      return [file, { html, etag: `"${createHash('sha256').update(html).digest('hex').slice(0, 16)}"` }];
    }),
  );
  const immutable = {
    maxAge: 31_536_000,
    immutable: true,
    etag: true,
    setHeaders: (res: ServerResponse) => res.setHeader('X-Content-Type-Options', 'nosniff'),
  };
  const assets = sirv(ASSETS_DIR, immutable);
  const vendor = sirv(path.join(path.dirname(CHART_PACKAGE), 'dist'), immutable);

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const pathname = req.path ?? (req.url ?? '/').split('?')[0]!;
    const page = PAGES.find(({ pattern }) => pattern.test(pathname))?.file;
    if (page) {
      const { html, etag } = pages.get(page)!;
      const headers = { ...SECURITY_HEADERS, ETag: etag, 'Cache-Control': 'no-cache' };
      if (namesTag(req.headers['if-none-match'], etag)) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      res.writeHead(200, {
        ...headers,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': Buffer.byteLength(html),
      });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    // an asset of this version: the rest of the path is the file (anything else goes on to the API's 404)
    const [serve, strip] = pathname.startsWith(vendorPrefix)
      ? [vendor, vendorPrefix]
      : pathname.startsWith(prefix)
        ? [assets, prefix]
        : [undefined, ''];
    if (!serve) return next();
    const url = req.url;
    req.url = `/${pathname.slice(strip.length)}`;
    serve(req, res, () => {
      req.url = url;
      next();
    });
  };
}
