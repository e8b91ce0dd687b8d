// OpenAPI 3.1 from the routes' own zod schemas (docs/architecture.md, "Describing a route"): each
// route of an API's route table (src/api/http/routes.ts) is a RouteDoc naming the schemas it
// parses its path and query with and the schemas of its answers; openApiDocument turns the
// tables into one document with z.toJSONSchema. Nothing here knows a particular API.
import { z } from 'zod';

export type HttpMethod = 'get' | 'post';

export interface ResponseDoc {
  description: string;
  /** The body's schema; a JSON body unless `contentType` says otherwise. */
  body?: z.ZodType;
  contentType?: string;
  /** Headers of the answer, by name: what each says. */
  headers?: Record<string, string>;
}

export interface RouteDoc {
  method: HttpMethod;
  /** As the router writes it: `/api/candles/:tokenAddress`. */
  path: string;
  /** The group the route is listed under. */
  tag: string;
  summary: string;
  description?: string;
  /** The schema the route parses `req.params` with. */
  params?: z.ZodObject;
  /** The schema the route parses `req.query` with. */
  query?: z.ZodObject;
  /** Request headers the route reads, by name: what each does. */
  headers?: Record<string, string>;
  /** A JSON request body. */
  body?: { description: string; schema: z.ZodType };
  /** The route's own answers; the API's common ones (errors, rate limit) are added. */
  responses: Record<number, ResponseDoc>;
}

/** One API in the document: its routes and what every one of them may also answer. */
export interface ApiGroup {
  /** Its route table (src/api/http/routes.ts). */
  routes: readonly RouteDoc[];
  /** Where these routes are served when not at the document's own server. */
  servers?: {
    url: string;
    description: string;
    variables?: Record<string, { default: string; description: string }>;
  }[];
  /** Answers any route may give (429, 500, 503). */
  common: Record<number, ResponseDoc>;
  /** The answer to parameters that do not parse (added to routes that take parameters). */
  invalid: ResponseDoc;
}

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
}

type Json = Record<string, unknown>;

/** `/api/tokens/:address` → `/api/tokens/{address}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * A schema's JSON Schema, its named parts (`.meta({ id })`) moved to `components` and
 * referenced there. `io: 'output'` describes what the service sends, `'input'` what it reads.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const {
    $schema: _,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Json;
  for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) components[id] = relink(def) as Json;
  return relink(rest) as Json;
}

/** `#/$defs/X` → `#/components/schemas/X`, throughout. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : relink(v),
    ]),
  );
}

const SCALAR = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * A path or query parameter from the schema that parses it. A parameter is text on the wire;
 * one the route turns into a number (or an enum) is described by what it must read as
 * (`integer`, 1..100, default 50), one it turns into something JSON has no word for (a date,
 * a list) by the text it accepts, with the schema's description saying the rest.
 */
function parameter(name: string, where: 'path' | 'query', schema: z.ZodType): Json {
  let described: Json;
  try {
    const { $schema: _, ...out } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as Json;
    described = SCALAR.has(out.type as string) ? out : {};
  } catch {
    described = {};
  }
  if (!described.type) {
    const { $schema: _, ...input } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    described = input;
  }
  const { description, ...rest } = described;
  return {
    name,
    in: where,
    required: where === 'path' || !schema.safeParse(undefined).success,
    ...(description ? { description } : {}),
    schema: rest,
  };
}

function response(doc: ResponseDoc, components: Record<string, Json>): Json {
  return {
    description: doc.description,
    ...(doc.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(doc.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' } },
            ]),
          ),
        }
      : {}),
    ...(doc.body
      ? { content: { [doc.contentType ?? 'application/json']: { schema: jsonSchema(doc.body, 'output', components) } } }
      : doc.contentType
        ? { content: { [doc.contentType]: { schema: { type: 'string' } } } }
        : {}),
  };
}

function operation(route: RouteDoc, group: ApiGroup, components: Record<string, Json>): Json {
  const parameters = [
    ...Object.entries(route.params?.shape ?? {}).map(([n, s]) => parameter(n, 'path', s as z.ZodType)),
    ...Object.entries(route.query?.shape ?? {}).map(([n, s]) => parameter(n, 'query', s as z.ZodType)),
    ...Object.entries(route.headers ?? {}).map(([name, description]) => ({
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string' },
    })),
  ];
  const responses: Record<number, ResponseDoc> = { ...group.common, ...route.responses };
  if ((parameters.length > 0 || route.body) && !responses[400]) responses[400] = group.invalid;
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    operationId: `${route.method}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            description: route.body.description,
            content: { 'application/json': { schema: jsonSchema(route.body.schema, 'input', components) } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries(responses)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([status, doc]) => [status, response(doc, components)]),
    ),
  };
}

/** The OpenAPI 3.1 document of `groups`, the first group served at the document's own server. */
export function openApiDocument(info: DocumentInfo, groups: ApiGroup[]): Json {
  const components: Record<string, Json> = {};
  const paths: Record<string, Json> = {};
  for (const group of groups) {
    for (const route of [...group.routes].sort((a, b) => a.path.localeCompare(b.path))) {
      const path = openApiPath(route.path);
      const item = paths[path] ?? (group.servers ? { servers: group.servers } : {});
      item[route.method] = operation(route, group, components);
      paths[path] = item;
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/', description: 'this server' }],
    tags: info.tags,
    paths,
    components: { schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))) },
  };
}
