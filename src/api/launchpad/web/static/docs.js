// `/api/docs`: /api/openapi.json as a page to read: every operation by tag, its parameters,
// request body and answers with their fields. One request (counted by the rate limit).
import { getJson, h } from './common.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Text with `code` spans, as DOM nodes (descriptions are plain text with backticks). */
const inline = (text = '') => text.split('`').map((part, i) => (i % 2 ? h('code', {}, part) : part));

let components = {};

function resolve(schema) {
  const ref = schema?.$ref;
  if (!ref) return { schema: schema ?? {}, name: null };
  const name = ref.split('/').at(-1);
  return { schema: components[name] ?? {}, name };
}

/** A one-line summary of a schema's type and constraints. */
function typeText(raw) {
  const { schema, name } = resolve(raw);
  if (name) return name;
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeText).join(' or ') || 'any';
  const parts = [];
  let type = [schema.type ?? (schema.properties ? 'object' : 'any')].flat().join(' or ');
  if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')))
    type = type.replace('array', `array of ${typeText(schema.items)}`);
  parts.push(type);
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.const !== undefined) parts.push(`= ${JSON.stringify(schema.const)}`);
  if (schema.format) parts.push(schema.format);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    parts.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(', ');
}

/** The fields of an object schema (nested objects inside), or its type for anything else. */
function schemaView(raw, depth = 0) {
  const { schema, name } = resolve(raw);
  const items = schema.type === 'array' ? resolve(schema.items) : null;
  const target = items && (items.schema.properties || items.schema.anyOf) ? items : { schema, name };
  const fields = target.schema.properties;
  const variants = target.schema.anyOf ?? target.schema.oneOf;
  const head = h(
    'div',
    { class: 'type' },
    schema.type === 'array' ? `array of ${typeText(schema.items)}` : typeText(raw),
  );
  if (depth > 4) return head;
  if (variants)
    return h(
      'div',
      { class: 'schema' },
      head,
      ...variants.map((v) => h('div', { class: 'field' }, schemaView(v, depth + 1))),
    );
  if (!fields)
    return h('div', { class: 'schema' }, head, schema.description ? h('p', {}, ...inline(schema.description)) : null);
  const required = new Set(target.schema.required ?? []);
  return h(
    'div',
    { class: 'schema' },
    head,
    ...Object.entries(fields).map(([field, sub]) => {
      const resolved = resolve(sub).schema;
      const nested = resolved.properties || (resolved.type === 'array' && resolve(resolved.items).schema.properties);
      return h(
        'div',
        { class: 'field' },
        h('code', {}, field),
        required.has(field) ? '' : ' (optional)',
        ' — ',
        h('span', { class: 'type' }, typeText(sub)),
        resolved.description || sub.description ? ['. ', ...inline(sub.description ?? resolved.description)] : '',
        nested && depth < 4 ? schemaView(sub, depth + 1) : null,
      );
    }),
  );
}

function parametersTable(parameters) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, 'Parameters'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Name', 'In', 'Type', 'Required', 'Description'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      h(
        'tbody',
        {},
        ...parameters.map((p) =>
          h(
            'tr',
            {},
            h('td', {}, h('code', {}, p.name)),
            h('td', {}, p.in),
            h('td', {}, typeText(p.schema)),
            h('td', {}, p.required ? 'yes' : 'no'),
            h('td', {}, ...inline(p.description ?? p.schema?.description ?? '')),
          ),
        ),
      ),
    ),
  );
}

function operationView(method, path, op, servers) {
  const responses = Object.entries(op.responses ?? {}).map(([status, r]) => {
    const content = Object.entries(r.content ?? {});
    return h(
      'details',
      { open: status.startsWith('2') },
      h('summary', {}, h('strong', {}, status), ' ', ...inline(r.description)),
      r.headers
        ? h('p', {}, 'Headers: ', ...Object.keys(r.headers).flatMap((name, i) => [i ? ', ' : '', h('code', {}, name)]))
        : null,
      ...content.map(([type, media]) => h('div', {}, h('p', {}, h('code', {}, type)), schemaView(media.schema))),
    );
  });
  return h(
    'section',
    { class: 'operation', id: op.operationId, 'aria-labelledby': `${op.operationId}-title` },
    h(
      'h3',
      { id: `${op.operationId}-title` },
      h('span', { class: `method ${method}` }, method.toUpperCase()),
      h('code', { class: 'path' }, path),
    ),
    h('p', {}, ...inline(op.summary)),
    op.description ? h('p', { class: 'hint' }, ...inline(op.description)) : null,
    servers
      ? h('p', { class: 'hint' }, 'Served at ', h('code', {}, servers[0].url), ` (${servers[0].description})`)
      : null,
    op.parameters?.length ? [h('h4', {}, 'Parameters'), parametersTable(op.parameters)] : null,
    op.requestBody
      ? [
          h('h4', {}, 'Request body'),
          h('p', {}, ...inline(op.requestBody.description ?? '')),
          ...Object.values(op.requestBody.content ?? {}).map((media) => schemaView(media.schema)),
        ]
      : null,
    h('h4', {}, 'Answers'),
    ...responses,
  );
}

async function start() {
  const reference = document.getElementById('reference');
  let doc;
  try {
    doc = await getJson('/api/openapi.json');
  } catch (error) {
    reference.replaceChildren(h('p', { class: 'notice' }, `The API description could not be loaded: ${error.message}`));
    return;
  }
  components = doc.components?.schemas ?? {};
  const byTag = new Map((doc.tags ?? []).map((t) => [t.name, { tag: t, ops: [] }]));
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, { tag: { name: tag }, ops: [] });
      byTag.get(tag).ops.push({ method, path, op, servers: item.servers });
    }
  const groups = [...byTag.values()].filter((g) => g.ops.length);
  document
    .getElementById('toc')
    .replaceChildren(
      ...groups.flatMap(({ tag, ops }) => [
        h('h2', {}, tag.name),
        h(
          'ul',
          {},
          ...ops.map(({ method, path, op }) =>
            h('li', {}, h('a', { href: `#${op.operationId}` }, `${method.toUpperCase()} ${path}`)),
          ),
        ),
      ]),
    );
  reference.replaceChildren(
    h('h1', {}, doc.info.title, ' ', h('span', { class: 'symbol' }, `v${doc.info.version}`)),
    h('p', {}, ...inline(doc.info.description)),
    h(
      'p',
      {},
      'The machine-readable description: ',
      h('a', { href: '/api/openapi.json' }, h('code', {}, '/api/openapi.json')),
      ' (OpenAPI 3.1).',
    ),
    ...groups.map(({ tag, ops }) =>
      h(
        'section',
        { 'aria-label': tag.name },
        h('h2', {}, tag.name),
        tag.description ? h('p', { class: 'hint' }, ...inline(tag.description)) : null,
        ...ops.map(({ method, path, op, servers }) => operationView(method, path, op, servers)),
      ),
    ),
  );
  document.body.dataset.ready = 'true';
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}

start();
