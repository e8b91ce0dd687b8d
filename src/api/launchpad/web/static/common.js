// What the dashboard's pages share: building DOM (never HTML from API text: token names are
// whatever their creators typed), the chain's native coin (GET /api/chain) and amounts in its
// display unit, API calls that respect the rate limit, and the live feed with its status.

/** An element with attributes (`class`, `data-*`, properties for the rest) and children (nodes or text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = value;
    else if (name.startsWith('data-') || name.startsWith('aria-') || name === 'role' || name === 'title')
      element.setAttribute(name, value);
    else element[name] = value;
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

const GROUPED = /\B(?=(\d{3})+(?!\d))/g;

/**
 * A decimal integer string of 10^-decimals units as a decimal number, exactly: `units("1234567", 6)`
 * is `1.234567`; at most `maxFraction` fraction digits (cut, and without trailing zeros unless `fixed`).
 * Negative `decimals` multiply: `units("12", -3)` is `12,000`.
 */
export function units(integer, decimals, maxFraction = decimals, fixed = false) {
  if (decimals < 0) return units((BigInt(integer ?? 0) * 10n ** BigInt(-decimals)).toString(), 0);
  const value = BigInt(integer ?? 0);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(GROUPED, ',');
  const cut = digits.slice(digits.length - decimals).slice(0, maxFraction);
  const fraction = fixed ? cut : cut.replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * The chain's native coin as GET /api/chain says it: `denom` (the base units every native amount
 * of the API counts), `display` and `decimals` (one display unit is 10^decimals base units). Set
 * by loadChain(), which each page awaits before it shows an amount.
 */
export const coin = { denom: '', display: '', decimals: 0 };

/** Reads the chain's native coin into `coin`, and into every `[data-coin]` element its `display`, `denom` or `decimals`. */
export async function loadChain() {
  const chain = await getJson('/api/chain');
  Object.assign(coin, chain.native);
  for (const element of document.querySelectorAll('[data-coin]'))
    element.textContent = String(coin[element.dataset.coin]);
  return chain;
}

/** A token's decimals when the API does not say them: the launchpad's tokens have 6. */
export const TOKEN_DECIMALS = 6;

/** Prices are native base units per 10^PRICE_DIGITS token base units: the API's scale, not a chain's decimals. */
const PRICE_DIGITS = 6;

/** How many decimals a price has in the coin's display units per whole token of `tokenDecimals`. */
export const priceDecimals = (tokenDecimals) => coin.decimals + PRICE_DIGITS - (tokenDecimals ?? TOKEN_DECIMALS);

/**
 * A price (`price_unative`, `current_price`) in display units of the native coin per token of
 * `tokenDecimals`: every digit when it has at most six decimals; past that, from the first
 * significant digit six more (at least six decimals).
 */
export function price(priceUnative, tokenDecimals) {
  const decimals = priceDecimals(tokenDecimals);
  if (decimals <= 6) return units(priceUnative, decimals, decimals, true);
  const value = BigInt(priceUnative ?? 0);
  const digits = (value < 0n ? -value : value).toString().length;
  const zeros = value === 0n ? 0 : Math.max(0, decimals - digits);
  return units(priceUnative, decimals, Math.min(decimals, Math.max(6, zeros + 6)), true);
}

/** Base units of a coin or token of `decimals` in whole units, to `maxFraction` digits ("<0.01" for dust). */
export function amount(integer, decimals, maxFraction = 2) {
  const text = units(integer, decimals, maxFraction);
  return text === '0' && BigInt(integer ?? 0) > 0n ? `<${units('1', maxFraction)}` : text;
}

/** An amount of the native coin's base units in its display unit. */
export const native = (integer, maxFraction = 2) => amount(integer, coin.decimals, maxFraction);

/** A USD figure of the API (a plain decimal string): "$1,234.56", "$0.00001234"; "—" when null. */
export function usd(value) {
  if (value === null || value === undefined) return '—';
  const n = Number(value);
  if (n >= 1) return `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
  return `$${n.toLocaleString('en-US', { maximumSignificantDigits: 4 })}`;
}

/** A price change of the API ("12.34", "-3.00"): "+12.34 %", "−3.00 %"; "—" when null. */
export function change(value) {
  if (value === null || value === undefined) return h('span', { class: 'change' }, '—');
  const negative = value.startsWith('-');
  return h(
    'span',
    { class: `change ${negative ? 'down' : value === '0.00' ? '' : 'up'}` },
    `${negative ? '−' : '+'}${value.replace('-', '')} %`,
  );
}

/**
 * The native side of a feed trade, in base units, from its price and token side: within one
 * base unit per 10^6 token base units of the index's.
 */
export function tradeNative(trade) {
  const tokens = BigInt(trade.direction === 'native_to_token' ? trade.output_amount : trade.input_amount);
  return ((BigInt(trade.price_unative) * tokens) / 10n ** BigInt(PRICE_DIGITS)).toString();
}

/** The token side of a feed trade, in base units. */
export const tradeTokens = (trade) =>
  trade.direction === 'native_to_token' ? trade.output_amount : trade.input_amount;

export const shortAddress = (address) => (address ? `${address.slice(0, 10)}…${address.slice(-6)}` : '');

/** `HH:MM:SS` in UTC. */
export const clock = (iso) => new Date(iso).toISOString().slice(11, 19);

/** `YYYY-MM-DD HH:MM` in UTC. */
export const dateTime = (iso) => (iso ? new Date(iso).toISOString().slice(0, 16).replace('T', ' ') : '—');

export const tokenLabel = (token) => token?.symbol || token?.name || shortAddress(token?.address);

const ACTIONS = { buy: 'Buy', sell: 'Sell', swap: 'Swap', buy_and_graduate: 'Buy + graduate' };

/** A trade's word and its class: buys (and swaps into the token) up, sells down. */
export function tradeSide(trade) {
  const up = trade.direction === 'native_to_token';
  const word = trade.action === 'swap' ? (up ? 'Swap in' : 'Swap out') : (ACTIONS[trade.action] ?? trade.action);
  return { word, className: up ? 'buy' : 'sell' };
}

function hue(text) {
  let hash = 0;
  for (const c of text) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return hash % 360;
}

/**
 * A token's badge: its initials on a colour of its address. The image a creator set is
 * a link (opening it is the reader's choice): the page never loads it, since a creator
 * could point it anywhere and learn who looks at the token.
 */
export function avatar(token, large = false) {
  const initials = (token.symbol || token.name || '?').replace(/[^\p{L}\p{N}]/gu, '').slice(0, 3) || '?';
  const style = `hsl(${hue(token.address)} 55% 32%)`;
  const attributes = { class: `avatar${large ? ' large' : ''}`, 'aria-hidden': token.image ? undefined : 'true' };
  const badge = token.image
    ? h(
        'a',
        {
          ...attributes,
          href: token.image,
          rel: 'noreferrer nofollow',
          target: '_blank',
          title: `Image of ${tokenLabel(token)} (opens the creator's link)`,
          'aria-label': `Image of ${tokenLabel(token)}`,
        },
        initials.toUpperCase(),
      )
    : h('span', attributes, initials.toUpperCase());
  badge.style.background = style;
  return badge;
}

/**
 * A token's way to graduation: "Graduated", "AMM", or its progress as a bar and percent
 * (reserves ÷ threshold when the API says the threshold).
 */
export function graduationCell(token) {
  if (token.graduated) return h('span', { class: 'status graduated' }, 'Graduated');
  if (token.source === 'amm') return h('span', { class: 'status' }, 'AMM');
  const progress = progressOf(token);
  if (progress === null) return h('span', { class: 'status' }, 'On the curve');
  const percent = Math.min(100, progress * 100);
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${percent}%`;
  return h(
    'span',
    { class: 'progress', title: 'Reserves toward the graduation threshold' },
    h(
      'span',
      {
        class: 'bar',
        role: 'progressbar',
        'aria-valuemin': '0',
        'aria-valuemax': '100',
        'aria-valuenow': percent.toFixed(1),
        'aria-label': 'Graduation progress',
      },
      fill,
    ),
    `${percent.toFixed(percent < 10 ? 1 : 0)} %`,
  );
}

/** Reserves ÷ the graduation threshold (0..1), or null when the API does not say the threshold. */
export function progressOf(token) {
  if (token.graduated || token.source !== 'launchpad') return null;
  if (token.graduation_threshold && BigInt(token.graduation_threshold) > 0n)
    return Math.min(1, Number((BigInt(token.native_reserves) * 10_000n) / BigInt(token.graduation_threshold)) / 10_000);
  if (typeof token.graduation_progress === 'string') return Number(token.graduation_progress);
  return null;
}

export class RateLimited extends Error {
  constructor(retryAfterSeconds) {
    super(`The API's rate limit was reached; trying again in ${retryAfterSeconds} s`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** GET a JSON answer of this origin's API; a 429 is a RateLimited saying when to try again. */
export async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  if (response.status === 429) throw new RateLimited(Math.max(1, Number(response.headers.get('Retry-After')) || 10));
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** Shows `message` in the page's notice (or hides it for null). */
export function notice(message) {
  const element = document.getElementById('notice');
  if (!element) return;
  element.hidden = !message;
  element.textContent = message ?? '';
}

/**
 * The live feed at `path`, with its state shown in #feed-status. The browser reconnects a
 * dropped stream by itself, sending Last-Event-ID, so nothing is lost; when it gives up (the
 * server answered an error such as 429), a new stream resumes after the last event seen
 * (`last_event_id`), after a growing pause. `on(name, data, id)` gets every event.
 */
export function connectFeed(path, on) {
  const status = document.getElementById('feed-status');
  const show = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  let lastEventId = null;
  let failures = 0;
  let source;
  const open = () => {
    const url =
      lastEventId === null
        ? path
        : `${path}${path.includes('?') ? '&' : '?'}last_event_id=${encodeURIComponent(lastEventId)}`;
    source = new EventSource(url);
    show('connecting', 'Connecting to the live feed…');
    source.onopen = () => {
      failures = 0;
      show('live', 'Live');
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        const delay = Math.min(30, 3 * 2 ** failures++);
        show('down', `Feed disconnected: retrying in ${delay} s`);
        setTimeout(open, delay * 1000);
      } else {
        show('down', 'Feed disconnected: reconnecting…');
      }
    };
    for (const name of ['trade', 'token_launch', 'graduation', 'gap'])
      source.addEventListener(name, (event) => {
        lastEventId = event.lastEventId || lastEventId;
        on(name, JSON.parse(event.data), event.lastEventId);
      });
  };
  open();
  return { lastEventId: () => lastEventId };
}

/**
 * Runs `task` at most once per `minGapMs`, `delayMs` after it is asked for (sooner asks win);
 * a RateLimited task is run again once the limit allows.
 */
export function throttled(task, minGapMs) {
  let timer = null;
  let due = Number.POSITIVE_INFINITY;
  let lastRun = 0;
  const run = async () => {
    timer = null;
    due = Number.POSITIVE_INFINITY;
    lastRun = Date.now();
    try {
      await task();
      notice(null);
    } catch (error) {
      if (error instanceof RateLimited) {
        notice(error.message);
        schedule(error.retryAfterSeconds * 1000);
      } else console.warn('Refreshing failed', error);
    }
  };
  const schedule = (delayMs = 0) => {
    const at = Math.max(Date.now() + delayMs, lastRun + minGapMs);
    if (at >= due) return;
    if (timer) clearTimeout(timer);
    due = at;
    timer = setTimeout(run, at - Date.now());
  };
  return schedule;
}
