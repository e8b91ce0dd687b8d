// Per-client request limits with X-RateLimit-* headers on every response and a 429 past
// the limit. The client is the socket's address unless TRUST_PROXY says how many proxies
// in front of the service to believe in X-Forwarded-For, so the header cannot be used
// to dodge the limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors.ts';

/** The client's address: the socket's, or the one `trustedHops` proxies reported. */
function clientIp(req: IncomingMessage, trustedHops: number): string {
  const socketIp = req.socket.remoteAddress ?? 'unknown';
  if (trustedHops <= 0) return socketIp;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The nearest proxy appends the address it saw; with N trusted proxies the client is
  // the N-th entry from the right (what the socket shows is the last proxy itself).
  const chain = [...forwarded, socketIp];
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}

/**
 * Whom a limit counts an address against: an IPv4 address itself (an IPv4-mapped IPv6 one
 * too); for IPv6 its /64, the least a host is given, any address of which it may use (one
 * client would otherwise have 2^64 limits).
 */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

export interface RateLimitOptions {
  points: number;
  windowSeconds: number;
  trustedHops: number;
  /** The error past the limit, in the API's style; `headers` go on the answer. Default: the Launchpad API's 429. */
  limited?: (limit: Limited) => Error;
}

export interface Limited {
  points: number;
  windowSeconds: number;
  retryAfterSeconds: number;
  headers: Record<string, string | number>;
}

const launchpadLimited = ({ points, windowSeconds, retryAfterSeconds, headers }: Limited) =>
  new HttpError(
    429,
    'Too many requests',
    [
      {
        message: `at most ${points} requests per ${windowSeconds} s per client; retry in ${retryAfterSeconds} s`,
        limit: points,
        window_seconds: windowSeconds,
        retry_after_seconds: retryAfterSeconds,
      },
    ],
    headers,
  );

export function createRateLimit({ points, windowSeconds, trustedHops, limited = launchpadLimited }: RateLimitOptions) {
  const limiter = new RateLimiterMemory({ points, duration: windowSeconds });
  const headers = (r: RateLimiterRes) => ({
    'X-RateLimit-Limit': points,
    'X-RateLimit-Remaining': Math.max(0, r.remainingPoints),
    // Unix time (seconds) when the window resets
    'X-RateLimit-Reset': Math.ceil((Date.now() + r.msBeforeNext) / 1000),
  });
  return async (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    try {
      const r = await limiter.consume(clientKey(clientIp(req, trustedHops)));
      for (const [k, v] of Object.entries(headers(r))) res.setHeader(k, v);
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw limited({
        points,
        windowSeconds,
        retryAfterSeconds,
        headers: { ...headers(rejection), 'Retry-After': retryAfterSeconds },
      });
    }
  };
}
