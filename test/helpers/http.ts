// HTTP GETs of JSON for tests: the status, the headers and the parsed body.

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
