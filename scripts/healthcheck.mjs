// Container healthcheck: exits 0 when GET /api/health answers 200, 1 otherwise (503, no
// answer within 4 s, nothing listening). Plain JavaScript so it starts in milliseconds.
const port = process.env.LAUNCHPAD_API_PORT || '3000';
const host =
  !process.env.HOST || process.env.HOST === '0.0.0.0'
    ? '127.0.0.1'
    : process.env.HOST === '::'
      ? '[::1]'
      : process.env.HOST;
try {
  const res = await fetch(`http://${host}:${port}/api/health`, { signal: AbortSignal.timeout(4000) });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) console.error(`unhealthy: HTTP ${res.status} ${JSON.stringify(body)}`);
  process.exit(res.ok ? 0 : 1);
} catch (error) {
  console.error(`unhealthy: ${error.message}`);
  process.exit(1);
}
