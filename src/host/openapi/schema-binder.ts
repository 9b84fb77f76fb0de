import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Binder, EndpointOptions } from '../pipeline/endpoint.js';
import type { ApiDescription, ApiParameter, JsonSchema } from './api-description.js';

/** What a described endpoint's handler gets: path, query and header values parsed to their schemas, and the body. */
export interface BoundRequest<Q = Record<string, unknown>, B = unknown> {
  readonly params: Record<string, string>;
  readonly query: Q;
  readonly headers: Record<string, unknown>;
  readonly body: B;
}

// One validator for the whole process: each schema is compiled once.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
// OpenAPI annotations that are not JSON Schema keywords of their own.
ajv.addVocabulary(['example']);

/**
 * Endpoint options from an API description: the metadata the OpenAPI documents read, the accepted
 * content type, and a binder that checks the request against the same schemas (400 naming each bad
 * value: `lines[0].quantity`, `limit`, `body`).
 */
export function describedEndpoint<Q = Record<string, unknown>, B = unknown>(
  api: ApiDescription,
  extra: Omit<EndpointOptions<BoundRequest<Q, B>>, 'bind'> = {},
): EndpointOptions<BoundRequest<Q, B>> {
  return {
    ...extra,
    ...(api.body ? { accepts: [api.body.contentType] } : {}),
    metadata: { ...extra.metadata, api },
    bind: schemaBinder<Q, B>(api),
  };
}

function schemaBinder<Q, B>(api: ApiDescription): Binder<BoundRequest<Q, B>> {
  const params = api.parameters ?? [];
  // Compiled on the first request, not at start: start-up stays as fast as before the descriptions.
  let compiled:
    | { checks: { p: ApiParameter; validate: ValidateFunction }[]; body: ValidateFunction | undefined }
    | undefined;
  return (ctx) => {
    compiled ??= {
      checks: params.map((p) => ({ p, validate: ajv.compile(p.schema) })),
      body: api.body ? ajv.compile(api.body.schema) : undefined,
    };
    const { checks, body } = compiled;
    const errors: Record<string, string> = {};
    const out = {
      params: {} as Record<string, string>,
      query: {} as Record<string, unknown>,
      headers: {} as Record<string, unknown>,
    };
    for (const { p, validate } of checks) {
      const raw =
        p.in === 'path'
          ? ctx.routeValues[p.name]
          : p.in === 'query'
            ? ctx.query.get(p.name)
            : header(ctx.headers[p.name.toLowerCase()]);
      if (raw === undefined || raw === null || raw === '') {
        if (p.required) errors[p.name] = 'is required';
        continue;
      }
      const value = parseScalar(raw, p.schema);
      if (value === undefined || !validate(value)) {
        errors[p.name] = describe(validate.errors, p);
        continue;
      }
      if (p.in === 'path') out.params[p.name] = raw;
      else if (p.in === 'query') out.query[p.name] = value;
      else out.headers[p.name] = value;
    }
    let parsedBody: unknown;
    if (body) {
      const text = ctx.body?.toString('utf8') ?? '';
      try {
        parsedBody = JSON.parse(text);
      } catch {
        errors.body = text === '' ? 'is required' : 'is not JSON';
      }
      if (!('body' in errors) && !body(parsedBody)) Object.assign(errors, bodyErrors(body.errors));
    }
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    return { ok: true, value: { ...out, query: out.query as Q, body: parsedBody as B } };
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A string from the URL or a header as its schema's type; undefined when it is not one. */
function parseScalar(raw: string, schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'integer':
      return /^-?\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    default:
      return raw;
  }
}

function describe(errors: ValidateFunction['errors'], p: ApiParameter): string {
  const s = p.schema;
  if (s.type === 'integer') {
    const range =
      s.minimum !== undefined && s.maximum !== undefined ? ` from ${String(s.minimum)} to ${String(s.maximum)}` : '';
    return `must be an integer${range}`;
  }
  return errors?.[0]?.message ?? `must be a ${String(s.type)}`;
}

/** Values named in one answer, at most: a body of many bad items must not make an answer larger than itself. */
const MAX_NAMED_ERRORS = 50;

/** `/lines/0/quantity` → `lines[0].quantity`; a missing property is named itself. */
function bodyErrors(errors: ErrorObject[] | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of (errors ?? []).slice(0, MAX_NAMED_ERRORS)) {
    let path = e.instancePath;
    if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties')
      path += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    const name =
      path === ''
        ? 'body'
        : path
            .slice(1)
            .split('/')
            .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
            .join('');
    out[name] ??=
      e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'additionalProperties'
          ? 'is not a known field'
          : (e.message ?? 'is invalid');
  }
  return out;
}
