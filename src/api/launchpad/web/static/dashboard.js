// `/`: every token with its price, last 24 hours, reserves and graduation, sortable, kept
// current by the live feed (a trade updates its row and may move it, a launch adds one, a
// graduation flips it), and a tape of launches, graduations and trades.
//
// Amounts are in the chain's native coin as /api/chain names it, prices per whole token of the
// token's decimals.
//
// Requests (each counts against the API's per-client limit; this page's own files do not):
// on load /api/chain, /api/tokens and /api/trades/recent, and the feed; then /api/tokens again
// at most every 10 s after graduations and every 30 s while trades arrive, to correct what the
// feed cannot say exactly (the 24 h figures slide with the clock; a feed trade's native side is
// known from its price to within a base unit per 10^6 token base units), and every minute
// while the page is shown, for what changes with no feed event (the 24 h figures and price
// changes sliding while nothing trades, a total supply and so a market cap read after launch). A launched token
// (launched in the last minute, at load) is read by /api/tokens/{address} 1, 3, 7, 15 and 31 s
// after its launch until it has a name or symbol: the index reads them from the token contract
// shortly after the launch block.
import {
  ApiError,
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
  progressOf,
  RateLimited,
  shortAddress,
  throttled,
  tokenLabel,
  tradeNative,
  tradeSide,
  usd,
} from './common.js';

const MAX_ROWS = 200;
/** How often the list is read again while the page is shown, whatever the feed says. */
const LIST_REFRESH_MS = 60_000;
const TAPE_LENGTH = 60;

/** address → the token as the API answers it, kept current from the feed. */
const tokens = new Map();
/** address → its row: the cells and what they last showed. */
const rows = new Map();
const changed = new Set();
const flashing = new Set();
let sort = { key: null, descending: true };
let filter = '';
let drawing = false;
/** Set once the list came from the API: before that the table shows nothing of it. */
let loaded = false;

/** address → how often it was asked for: tokens whose name the index has not read yet. */
const nameless = new Map();
const NAME_ATTEMPTS = 5;
/** At load, how recent a launch still gets its name asked for. */
const NAME_WAIT_MS = 60_000;

const tbody = document.getElementById('token-rows');
const tape = document.getElementById('tape');
const summary = document.getElementById('token-summary');

const big = (a, b) => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};
const graduationRank = (t) => (t.graduated ? 3 : t.source === 'amm' ? 2 : (progressOf(t) ?? -1));
const launched = (t) => Date.parse(t.created_at ?? t.first_seen_at);
/** A figure that may be null (no price change yet, no USD price): nulls below every number. */
const nullable = (x, y) => (x === null ? (y === null ? 0 : -1) : y === null ? 1 : Number(x) - Number(y));
const SORTS = {
  name: (a, b) => tokenLabel(a).localeCompare(tokenLabel(b)),
  price: (a, b) => big(a.current_price, b.current_price),
  usd: (a, b) => nullable(a.price_usd, b.price_usd),
  change1h: (a, b) => nullable(a.price_change?.['1h'] ?? null, b.price_change?.['1h'] ?? null),
  change24h: (a, b) => nullable(a.price_change?.['24h'] ?? null, b.price_change?.['24h'] ?? null),
  mcap: (a, b) => nullable(a.market_cap_unative, b.market_cap_unative),
  holders: (a, b) => a.holders - b.holders,
  volume: (a, b) => big(a.volume_24h, b.volume_24h),
  trades: (a, b) => a.trade_count_24h - b.trade_count_24h,
  reserves: (a, b) => big(a.native_reserves, b.native_reserves),
  progress: (a, b) => graduationRank(a) - graduationRank(b),
  created: (a, b) => launched(a) - launched(b),
};

function order(a, b) {
  const primary = SORTS[sort.key](a, b);
  // ties: newest launch first, then by address, so rows never swap at random
  return (sort.descending ? -primary : primary) || launched(b) - launched(a) || a.address.localeCompare(b.address);
}

const matches = (t) => !filter || [t.name, t.symbol, t.address].some((v) => v?.toLowerCase().includes(filter));

/** The cells of a token's row, each as [class, content]; a cell is redrawn only when its text changes. */
function cellsOf(t) {
  const link = h('a', { href: `/tokens/${encodeURIComponent(t.address)}` }, t.name || shortAddress(t.address));
  return [
    [
      '',
      h(
        'span',
        { class: 'token-cell' },
        avatar(t),
        h('span', { class: 'names' }, link, h('span', { class: 'symbol' }, t.symbol ?? '')),
      ),
    ],
    ['num', price(t.current_price, t.decimals)],
    ['num opt', usd(t.price_usd)],
    ['num', change(t.price_change?.['1h'])],
    ['num', change(t.price_change?.['24h'])],
    ['num', native(t.volume_24h)],
    ['num opt', String(t.trade_count_24h)],
    ['num opt', t.market_cap_unative === null ? '—' : native(t.market_cap_unative, 0)],
    ['num opt', String(t.holders ?? 0)],
    ['num opt', native(t.native_reserves)],
    ['', graduationCell(t)],
    ['opt', dateTime(t.created_at ?? t.first_seen_at)],
  ];
}

function drawRow(t) {
  let row = rows.get(t.address);
  if (!row) {
    const tr = h('tr', { 'data-address': t.address });
    row = { tr, cells: [], shown: [] };
    rows.set(t.address, row);
  }
  cellsOf(t).forEach(([className, content], i) => {
    const text = typeof content === 'string' ? content : content.textContent;
    if (row.shown[i] === text) return;
    row.shown[i] = text;
    let td = row.cells[i];
    if (!td) {
      td = h('td', { class: className || undefined });
      row.cells[i] = td;
      row.tr.append(td);
    }
    td.replaceChildren(content);
  });
  return row;
}

function draw() {
  drawing = false;
  for (const address of changed) {
    const t = tokens.get(address);
    if (t) drawRow(t);
  }
  changed.clear();
  const shown = [...tokens.values()].filter(matches).sort(order).slice(0, MAX_ROWS);
  const wanted = shown.map((t) => (rows.get(t.address) ?? drawRow(t)).tr);
  // reorder only what moved; a focused link keeps its focus when its row moves
  const focused = tbody.contains(document.activeElement) ? document.activeElement : null;
  if (wanted.length === 0) {
    tbody.replaceChildren(
      h(
        'tr',
        { class: 'placeholder' },
        h(
          'td',
          { colSpan: 12 },
          tokens.size ? 'No token matches the filter' : loaded ? 'No token yet' : 'Loading tokens…',
        ),
      ),
    );
  } else {
    for (const placeholder of tbody.querySelectorAll('tr.placeholder')) placeholder.remove();
    wanted.forEach((tr, i) => {
      if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] ?? null);
    });
    while (tbody.children.length > wanted.length) tbody.lastElementChild.remove();
  }
  drawSortArrows();
  if (focused && document.activeElement !== focused && document.contains(focused))
    focused.focus({ preventScroll: true });
  for (const address of flashing) {
    const tr = rows.get(address)?.tr;
    if (!tr) continue;
    tr.classList.remove('flash');
    void tr.offsetWidth; // restart the animation
    tr.classList.add('flash');
  }
  flashing.clear();
  const matching = [...tokens.values()].filter(matches).length;
  summary.textContent =
    `${tokens.size} token${tokens.size === 1 ? '' : 's'}` +
    (filter ? `, ${matching} matching` : '') +
    (Math.min(matching, tokens.size) > MAX_ROWS ? `, the first ${MAX_ROWS} shown` : '');
  // ready: the table shows the API's list (a draw before it came, e.g. of the sort arrows, is not)
  if (loaded) document.body.dataset.ready = 'true';
}

function redraw() {
  if (drawing) return;
  drawing = true;
  requestAnimationFrame(draw);
}

function setSort(key) {
  sort = sort.key === key ? { key, descending: !sort.descending } : { key, descending: key !== 'name' };
  redraw();
}

/** The headers' sort arrows, set with the rows they describe (a client reading one reads the other). */
function drawSortArrows() {
  for (const th of document.querySelectorAll('th[data-sort]')) {
    if (th.dataset.sort === sort.key) th.setAttribute('aria-sort', sort.descending ? 'descending' : 'ascending');
    else th.removeAttribute('aria-sort');
  }
}

// ---------------------------------------------------------------------------------------
// The tape

function addTape({ key, time, kind, word, className, what, tx }, atTop) {
  if (tape.querySelector(`li[data-key="${CSS.escape(key)}"]`)) return;
  const li = h(
    'li',
    { 'data-key': key, 'data-kind': kind, 'data-tx': tx },
    h('time', { class: 'time', dateTime: time }, clock(time)),
    h('span', { class: `kind ${className}` }, word),
    h('span', { class: 'what' }, ...what),
  );
  if (atTop) tape.prepend(li);
  else tape.append(li);
  while (tape.children.length > TAPE_LENGTH) tape.lastElementChild.remove();
}

const tokenLink = (address) =>
  h('a', { href: `/tokens/${encodeURIComponent(address)}` }, tokenLabel(tokens.get(address) ?? { address }));

/** A trade of the feed (input/output amounts) or of /api/trades/recent (volumes). */
function tradeEntry(trade) {
  const { word, className } = tradeSide(trade);
  const amount = trade.volume_unative ?? tradeNative(trade);
  const token = tokens.get(trade.token_address);
  return {
    key: `trade:${trade.tx_hash}:${trade.token_address}:${trade.price_unative}`,
    tx: trade.tx_hash,
    time: trade.time,
    kind: 'trade',
    word,
    className,
    what: [
      tokenLink(trade.token_address),
      ` ${native(amount)} ${coin.display} at ${price(trade.price_unative, token?.decimals)}`,
    ],
  };
}

// ---------------------------------------------------------------------------------------
// Loading and the feed

const refreshList = throttled(async () => {
  const { tokens: list } = await getJson('/api/tokens');
  for (const t of list) {
    const had = tokens.get(t.address);
    if (had && JSON.stringify(had) === JSON.stringify(t)) continue;
    tokens.set(t.address, t);
    changed.add(t.address);
  }
  redraw();
}, 10_000);

/** Asks for the token again until the index has its name and symbol (see the header). */
function awaitName(address) {
  if (nameless.has(address)) return;
  nameless.set(address, 0);
  setTimeout(() => completeName(address), 1_000);
}

async function completeName(address) {
  const attempts = nameless.get(address);
  if (attempts === undefined) return;
  let retryMs = 1_000 * 2 ** (attempts + 1);
  try {
    const t = await getJson(`/api/tokens/${encodeURIComponent(address)}`);
    if (t.name !== null || t.symbol !== null) {
      nameless.delete(address);
      tokens.set(address, { ...tokens.get(address), ...t });
      changed.add(address);
      redraw();
      return;
    }
  } catch (error) {
    // a 404: the launch is on the feed before the token is in the index
    if (error instanceof RateLimited) retryMs = error.retryAfterSeconds * 1000;
    else if (!(error instanceof ApiError)) console.warn('Reading the token failed', error);
  }
  if (attempts + 1 >= NAME_ATTEMPTS) {
    nameless.delete(address); // the list's own refreshes still show it once it comes
    return;
  }
  nameless.set(address, attempts + 1);
  setTimeout(() => completeName(address), retryMs);
}

function onEvent(name, data) {
  const t = tokens.get(data.token_address);
  if (name === 'trade') {
    if (t) {
      t.current_price = data.price_unative;
      t.native_reserves = data.native_reserves;
      t.trade_count_24h += 1;
      t.volume_24h = (BigInt(t.volume_24h) + BigInt(tradeNative(data))).toString();
      changed.add(t.address);
      flashing.add(t.address);
    }
    addTape(tradeEntry(data), true);
    refreshList(t ? 30_000 : 1_000);
  } else if (name === 'token_launch') {
    if (!t) {
      tokens.set(data.token_address, {
        address: data.token_address,
        name: null,
        symbol: null,
        image: null,
        creator: data.creator,
        source: 'launchpad',
        graduated: false,
        native_reserves: data.initial_reserves,
        current_price: '0',
        volume_24h: '0',
        trade_count_24h: 0,
        created_at: data.time,
        first_seen_at: data.time,
      });
      changed.add(data.token_address);
      flashing.add(data.token_address);
    }
    addTape(
      {
        key: `launch:${data.token_address}`,
        time: data.time,
        kind: 'launch',
        word: 'Launch',
        className: 'launch',
        what: [tokenLink(data.token_address), ` with ${native(data.initial_reserves)} ${coin.display}`],
      },
      true,
    );
    awaitName(data.token_address);
  } else if (name === 'graduation') {
    if (t) {
      t.graduated = true;
      t.graduation_progress = null;
      t.graduation_threshold = null;
      changed.add(t.address);
      flashing.add(t.address);
    }
    addTape(
      {
        key: `graduation:${data.token_address}`,
        time: data.time,
        kind: 'graduation',
        word: 'Graduated',
        className: 'graduation',
        what: [tokenLink(data.token_address), ` → AMM pool with ${native(data.native_for_pool)} ${coin.display}`],
      },
      true,
    );
    refreshList(5_000);
  } else if (name === 'gap') {
    refreshList(0); // events were skipped: the list from the API
  }
  redraw();
}

async function start() {
  for (const th of document.querySelectorAll('th[data-sort]'))
    th.querySelector('button').addEventListener('click', () => setSort(th.dataset.sort));
  setSort('volume');
  document.getElementById('filter').addEventListener('input', (e) => {
    filter = e.target.value.trim().toLowerCase();
    redraw();
  });

  // the feed first, its events held until the list is in: none is missed in between
  const held = [];
  connectFeed('/api/sse/feed', (name, data) => (loaded ? onEvent(name, data) : held.push([name, data])));
  for (;;) {
    try {
      const [{ tokens: list }, { trades }] = await Promise.all([
        getJson('/api/tokens'),
        getJson('/api/trades/recent?limit=40'),
        loadChain(),
      ]);
      for (const t of list) {
        tokens.set(t.address, t);
        changed.add(t.address);
        if (t.name === null && t.symbol === null && Date.now() - launched(t) < NAME_WAIT_MS) awaitName(t.address);
      }
      for (const trade of trades) addTape(tradeEntry(trade), false);
      break;
    } catch (error) {
      const wait = error instanceof RateLimited ? error.retryAfterSeconds : 5;
      notice(
        error instanceof RateLimited
          ? error.message
          : `Loading the tokens failed (${error.message}); trying again in ${wait} s`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }
  notice(null);
  loaded = true;
  for (const [name, data] of held) onEvent(name, data);
  redraw();
  setInterval(() => {
    if (document.visibilityState === 'visible') refreshList(0);
  }, LIST_REFRESH_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') refreshList(0);
  });
}

start();
