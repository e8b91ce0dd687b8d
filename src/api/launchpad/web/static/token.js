// `/tokens/<address>`: the token's candles and volume (from /api/candles, drawn with
// lightweight-charts), timeframes 1m/5m/1h/1d, its details, graduation and recent trades,
// moving with each of its feed events: a trade moves the forming candle at once. Amounts are in
// the chain's native coin as /api/chain names it, prices per whole token of the token's decimals.
//
// Requests (counted against the API's per-client limit): on load the chain, the token, its
// trades, its candles and the feed (only this token's events); one candles request per timeframe
// switch; and, while the token trades, the token, its trades and the candles changed since the
// last load at most every 10 s, to replace what the page worked out from the feed (a feed trade's
// native side is known from its price to within a base unit per 10^6 token base units) with the
// index's.
import {
  ApiError,
  amount,
  avatar,
  change,
  clock,
  coin,
  connectFeed,
  dateTime,
  getJson,
  graduationCell,
  h,
  loadChain,
  native,
  notice,
  price,
  priceDecimals,
  RateLimited,
  shortAddress,
  TOKEN_DECIMALS,
  throttled,
  tradeNative,
  tradeSide,
  tradeTokens,
  usd,
} from './common.js';
import { CandlestickSeries, createChart, HistogramSeries } from './vendor/lightweight-charts.standalone.production.mjs';

const PERIOD_MS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 };
const CANDLES = 300;
const TRADES = 50;

const address = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const api = encodeURIComponent(address);
const requested = new URLSearchParams(location.search).get('timeframe');
let timeframe = Object.hasOwn(PERIOD_MS, requested ?? '') ? requested : '5m';

let token = null;
/** The chart's candles as the API answers them (ascending), with the feed's trades applied. */
let candles = [];
let chartUrl = null;
let state = 'loading';
/** The first period the feed changed since the candles were loaded (ms), and how many changes. */
let dirtyFrom = null;
let edits = 0;
let loads = 0;
let chart = null;
let candleSeries = null;
let volumeSeries = null;

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// The chart

const UP = '#3fb950';
const DOWN = '#ff7b72';
/** A price of the API in display units of the native coin per whole token. */
const toPrice = (integer) => Number(integer) / 10 ** priceDecimals(token.decimals);
/** Native base units in display units. */
const toNative = (integer) => Number(integer) / 10 ** coin.decimals;
const bar = (c) => ({
  time: Date.parse(c.time) / 1000,
  open: toPrice(c.open),
  high: toPrice(c.high),
  low: toPrice(c.low),
  close: toPrice(c.close),
});
const volumeBar = (c) => ({
  time: Date.parse(c.time) / 1000,
  value: toNative(c.volume),
  color: BigInt(c.close) >= BigInt(c.open) ? 'rgba(63, 185, 80, 0.45)' : 'rgba(255, 123, 114, 0.45)',
});

/**
 * The price axis: every digit up to 8 decimals; past that, six significant digits, on a scale
 * whose step is at most 10^-15 (the library's arithmetic is in doubles: a finer one breaks it).
 */
function priceFormat() {
  const decimals = Math.max(0, priceDecimals(token.decimals));
  if (decimals <= 8) return { type: 'price', precision: decimals, minMove: Number(`1e-${decimals}`) };
  const significant = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 });
  return {
    type: 'custom',
    minMove: Number(`1e-${Math.min(decimals, 15)}`),
    formatter: (value) => significant.format(value),
  };
}

function makeChart() {
  chart = createChart($('chart'), {
    autoSize: true,
    layout: {
      background: { color: '#161b22' },
      textColor: '#e6edf3',
      attributionLogo: false,
      panes: { separatorColor: '#30363d' },
    },
    grid: { vertLines: { color: '#21262d' }, horzLines: { color: '#21262d' } },
    rightPriceScale: { borderColor: '#30363d', scaleMargins: { top: 0.08, bottom: 0.05 } },
    timeScale: { borderColor: '#30363d', timeVisible: true, secondsVisible: false },
  });
  candleSeries = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    borderVisible: false,
    priceFormat: priceFormat(),
  });
  // volume in a pane of its own below the price, a quarter of the height
  volumeSeries = chart.addSeries(
    HistogramSeries,
    { priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false },
    1,
  );
  chart.panes()[0].setStretchFactor(3);
  chart.panes()[1].setStretchFactor(1);
}

function drawAll() {
  candleSeries.setData(candles.map(bar));
  volumeSeries.setData(candles.map(volumeBar));
}

function showTimeframe() {
  for (const button of document.querySelectorAll('[data-timeframe]'))
    button.setAttribute('aria-pressed', String(button.dataset.timeframe === timeframe));
  $('chart').dataset.timeframe = timeframe;
  $('chart').dataset.state = state;
}

async function loadCandles(tf) {
  const load = ++loads;
  timeframe = tf;
  state = 'loading';
  showTimeframe();
  const from = new Date(Date.now() - CANDLES * PERIOD_MS[tf]).toISOString();
  const url = `/api/candles/${api}?timeframe=${tf}&from=${encodeURIComponent(from)}&limit=${CANDLES}`;
  let body;
  for (;;) {
    try {
      body = await getJson(url);
      break;
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
      notice(error.message);
      await new Promise((resolve) => setTimeout(resolve, error.retryAfterSeconds * 1000));
    }
  }
  if (load !== loads) return; // another timeframe was chosen meanwhile
  notice(null);
  candles = body.candles;
  chartUrl = url;
  dirtyFrom = null;
  drawAll();
  const bars = candles.length;
  // the latest 120 candles, or all of them at a width that fills part of the chart
  const width = $('chart').clientWidth || 600;
  chart
    .timeScale()
    .applyOptions({ rightOffset: 4, barSpacing: Math.max(4, Math.min(24, (width * 0.7) / Math.max(bars, 1))) });
  if (bars > 120) chart.timeScale().setVisibleLogicalRange({ from: bars - 120, to: bars + 4 });
  else chart.timeScale().scrollToRealTime();
  state = 'ready';
  showTimeframe();
  $('chart-note').textContent =
    `${bars} candle${bars === 1 ? '' : 's'} of ${tf}` +
    ` in ${coin.display} per token; volume in ${coin.display}; times in UTC.` +
    (bars === 0 ? ' No trade in this range yet.' : '');
}

/** A feed trade into the forming candle (or a new one): the chart moves at once. */
function applyToCandles(trade) {
  const ms = PERIOD_MS[timeframe];
  const period = Math.floor(Date.parse(trade.time) / ms) * ms;
  dirtyFrom = Math.min(dirtyFrom ?? period, period);
  edits++;
  if (state !== 'ready') return; // the reload that is under way, or the next reconcile, has it
  const last = candles.at(-1);
  const lastStart = last ? Date.parse(last.time) : Number.NEGATIVE_INFINITY;
  const p = trade.price_unative;
  const volume = tradeNative(trade);
  let candle;
  if (period === lastStart) {
    candle = last;
    if (BigInt(p) > BigInt(candle.high)) candle.high = p;
    if (BigInt(p) < BigInt(candle.low)) candle.low = p;
    candle.close = p;
    candle.volume = (BigInt(candle.volume) + BigInt(volume)).toString();
    candle.trade_count += 1;
  } else if (period > lastStart) {
    candle = { time: new Date(period).toISOString(), open: p, high: p, low: p, close: p, volume, trade_count: 1 };
    candles.push(candle);
  } else return; // an earlier period (not a live trade): the reconcile brings it
  candleSeries.update(bar(candle));
  volumeSeries.update(volumeBar(candle));
}

/** The candles from the first period the feed changed, as the index has them. */
async function reconcileCandles() {
  if (dirtyFrom === null || state !== 'ready') return;
  const [from, load, seen] = [dirtyFrom, loads, edits];
  const url = `/api/candles/${api}?timeframe=${timeframe}&from=${new Date(from).toISOString()}&limit=1000`;
  const { candles: fresh } = await getJson(url);
  if (load !== loads) return;
  const kept = candles.filter((c) => Date.parse(c.time) < from);
  const tail = candles.slice(kept.length);
  const sameBars = tail.length === fresh.length && tail.every((c, i) => c.time === fresh[i].time);
  candles = [...kept, ...fresh];
  if (sameBars)
    for (const c of fresh) {
      candleSeries.update(bar(c), true);
      volumeSeries.update(volumeBar(c), true);
    }
  else drawAll();
  if (seen === edits) dirtyFrom = null; // else trades came meanwhile: the next reconcile has them
}

// ---------------------------------------------------------------------------------------
// Details and trades

/** " ($1,234)" after a native figure, when its USD value is known. */
const withUsd = (value) => (value === null || value === undefined ? '' : ` (${usd(value)})`);

function showToken() {
  const t = token;
  document.title = `${t.name ?? shortAddress(t.address)}${t.symbol ? ` (${t.symbol})` : ''} — Launchpad`;
  $('token-avatar').replaceChildren(avatar(t, true));
  $('token-name').replaceChildren(
    t.name ?? shortAddress(t.address),
    ' ',
    h('span', { class: 'symbol' }, t.symbol ?? ''),
  );
  $('token-status').replaceChildren(graduationCell(t));
  $('token-address').textContent = t.address;
  $('token-description').textContent = t.description ?? '';
  const rows = [
    ['Price', `${price(t.current_price, t.decimals)} ${coin.display}`],
    ['Price (USD)', usd(t.price_usd)],
    [
      'Change',
      h(
        'span',
        { class: 'changes' },
        ...['5m', '1h', '6h', '24h'].flatMap((w) => [`${w} `, change(t.price_change?.[w]), ' ']),
      ),
    ],
    [
      'Market cap',
      t.market_cap_unative === null
        ? '—'
        : `${native(t.market_cap_unative, 0)} ${coin.display}${withUsd(t.market_cap_usd)}`,
    ],
    ['Holders', String(t.holders ?? 0)],
    ['24 h volume', `${native(t.volume_24h)} ${coin.display}${withUsd(t.volume_24h_usd)}`],
    [
      '24 h trades',
      `${t.trade_count_24h} (${t.buys_24h ?? 0} buys, ${t.sells_24h ?? 0} sells, ${t.traders_24h ?? 0} traders)`,
    ],
    ['Reserves', `${native(t.native_reserves)} ${coin.display}`],
    ['Graduation', graduationCell(t)],
    ['Started on', t.source === 'amm' ? 'the AMM' : 'the launchpad curve'],
    ['Creator', t.creator ? h('code', { title: t.creator }, shortAddress(t.creator)) : '—'],
    ['Launched', t.created_at ? `${dateTime(t.created_at)} UTC` : '—'],
    ['First indexed', `${dateTime(t.first_seen_at)} UTC`],
    [
      'Image',
      t.image ? h('a', { href: t.image, rel: 'noreferrer nofollow', target: '_blank' }, "the creator's link") : '—',
    ],
  ];
  $('details').replaceChildren(...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

function tradeRow(trade) {
  const { word, className } = tradeSide(trade);
  return h(
    'tr',
    { 'data-tx': trade.tx_hash },
    h('td', {}, h('time', { dateTime: trade.time }, clock(trade.time))),
    h('td', { class: className }, word),
    h('td', { class: 'num' }, price(trade.price_unative, token.decimals)),
    h('td', { class: 'num' }, native(trade.volume_unative ?? tradeNative(trade))),
    h('td', { class: 'num opt' }, amount(trade.volume_token ?? tradeTokens(trade), token.decimals ?? TOKEN_DECIMALS)),
    h('td', { class: 'opt' }, h('code', { title: trade.trader }, shortAddress(trade.trader))),
  );
}

function showTrades(trades) {
  $('trade-rows').replaceChildren(
    ...(trades.length
      ? trades.map(tradeRow)
      : [h('tr', { class: 'placeholder' }, h('td', { colSpan: 6 }, 'No trade yet'))]),
  );
}

/** The largest holders and the day's top traders (each at most PEOPLE rows). */
const PEOPLE = 10;
async function loadPeople() {
  const [{ holders }, { traders }] = await Promise.all([
    getJson(`/api/tokens/${api}/holders?limit=${PEOPLE}`),
    getJson(`/api/tokens/${api}/traders?window=24h&limit=${PEOPLE}`),
  ]);
  const who = (a) => h('code', { title: a }, shortAddress(a));
  $('holder-rows').replaceChildren(
    ...(holders.length
      ? holders.map((x) =>
          h(
            'tr',
            {},
            h('td', {}, who(x.address)),
            h('td', { class: 'num' }, amount(x.balance, token.decimals ?? TOKEN_DECIMALS, 0)),
            h('td', { class: 'num' }, x.share === null ? '—' : `${(Number(x.share) * 100).toFixed(2)} %`),
          ),
        )
      : [h('tr', { class: 'placeholder' }, h('td', { colSpan: 3 }, 'No holder yet'))]),
  );
  $('trader-rows').replaceChildren(
    ...(traders.length
      ? traders.map((x) =>
          h(
            'tr',
            {},
            h('td', {}, who(x.address)),
            h('td', { class: 'num' }, native(x.volume_unative)),
            h('td', { class: 'num' }, String(x.buys)),
            h('td', { class: 'num' }, String(x.sells)),
          ),
        )
      : [h('tr', { class: 'placeholder' }, h('td', { colSpan: 4 }, 'No trade in 24 h'))]),
  );
}

const reconcile = throttled(async () => {
  const [fresh, { trades }] = await Promise.all([
    getJson(`/api/tokens/${api}`),
    getJson(`/api/trades/recent?token_address=${api}&limit=${TRADES}`),
  ]);
  token = fresh;
  showToken();
  showTrades(trades);
  await loadPeople();
  await reconcileCandles();
}, 10_000);

function onEvent(name, data) {
  if (data.token_address !== undefined && data.token_address !== address) return;
  if (name === 'trade') {
    token.current_price = data.price_unative;
    token.native_reserves = data.native_reserves;
    token.trade_count_24h += 1;
    token.volume_24h = (BigInt(token.volume_24h) + BigInt(tradeNative(data))).toString();
    showToken();
    const body = $('trade-rows');
    body.querySelector('tr.placeholder')?.remove();
    body.prepend(tradeRow(data));
    while (body.children.length > TRADES) body.lastElementChild.remove();
    applyToCandles(data);
    reconcile(1_500);
  } else if (name === 'graduation') {
    token.graduated = true;
    token.graduation_progress = null;
    token.graduation_threshold = null;
    showToken();
    reconcile(1_500);
  } else if (name === 'gap') {
    dirtyFrom = 0; // events were skipped: every candle from the index
    reconcile(0);
  }
}

function showNotFound(why) {
  document.title = 'Token not found — Launchpad';
  document.body.dataset.page = 'not-found';
  $('loading').hidden = true;
  $('token').hidden = true;
  $('not-found-why').replaceChildren(...why);
  $('not-found').hidden = false;
  $('feed-status').hidden = true;
}

async function start() {
  const held = [];
  let loaded = false;
  try {
    [token] = await Promise.all([getJson(`/api/tokens/${api}`), loadChain()]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      return showNotFound([
        'No token at ',
        h('code', {}, address),
        ' is indexed. A token created moments ago appears within a few seconds.',
      ]);
    if (error instanceof ApiError && error.status === 400)
      return showNotFound([h('code', {}, address), ' is not a token address.']);
    $('loading').textContent = `The token could not be loaded: ${error.message}. Reload the page to try again.`;
    return;
  }
  connectFeed(`/api/sse/feed?token_address=${api}`, (name, data) =>
    loaded ? onEvent(name, data) : held.push([name, data]),
  );
  $('loading').hidden = true;
  $('token').hidden = false;
  showToken();
  makeChart();
  for (const button of document.querySelectorAll('[data-timeframe]'))
    button.addEventListener('click', () => {
      if (button.dataset.timeframe === timeframe && state === 'ready') return;
      const url = new URL(location.href);
      url.searchParams.set('timeframe', button.dataset.timeframe);
      history.replaceState(null, '', url);
      loadCandles(button.dataset.timeframe).catch((error) =>
        notice(`The candles could not be loaded: ${error.message}`),
      );
    });
  const [{ trades }] = await Promise.all([
    getJson(`/api/trades/recent?token_address=${api}&limit=${TRADES}`),
    loadCandles(timeframe),
    loadPeople(),
  ]);
  showTrades(trades);
  loaded = true;
  for (const [name, data] of held) onEvent(name, data);
}

/** For tests and the curious: what the chart draws, and where it came from. */
window.__chart = {
  get timeframe() {
    return timeframe;
  },
  get state() {
    return state;
  },
  get url() {
    return chartUrl;
  },
  candles: () => candles.map((c) => ({ ...c })),
  drawn: () => ({ candles: candleSeries?.data() ?? [], volume: volumeSeries?.data() ?? [] }),
};

start().catch((error) => notice(`The page could not be loaded: ${error.message}`));
