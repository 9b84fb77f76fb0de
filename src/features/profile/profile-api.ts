import type { ApiDescription, JsonSchema } from '../../host/openapi/api-description.js';

const EMAIL: JsonSchema = { type: ['string', 'null'], maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' };
const PHONE: JsonSchema = { type: ['string', 'null'], maxLength: 32, pattern: '^\\+?[0-9 ()-]{3,32}$' };
const FIELD_MANAGER: JsonSchema = { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' };

export const PROFILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['email', 'phone'],
  properties: { email: EMAIL, phone: PHONE },
};

// An ETag is a version of up to 9 digits in quotes; If-Match may list a few of them.
const ETAG = {
  ETag: {
    description: 'the version of the profile; send it back in If-Match',
    schema: { type: 'string', maxLength: 11 },
  },
};
const IF_MATCH = {
  name: 'If-Match',
  in: 'header' as const,
  schema: { type: 'string', maxLength: 1024 },
  description: 'the ETag read last; a stale one gets 412',
};
const ANSWER = { description: 'the profile as stored', schema: PROFILE_SCHEMA, headers: ETAG };

export const GET_PROFILE_API: ApiDescription = {
  group: 'public',
  operationId: 'getProfile',
  summary: "Read the caller's profile",
  description: 'email and phone (null until set), with its ETag.',
  tags: ['profile'],
  responses: { 200: ANSWER, 401: { description: 'no or a bad token' } },
};

export const PUT_PROFILE_API: ApiDescription = {
  group: 'public',
  operationId: 'putProfile',
  summary: "Replace the caller's profile",
  description:
    'Full-state replace: both fields are written. Without If-Match a stale client silently overwrites a newer change (lost update); with it, a stale write gets 412. A server may require If-Match (428 without it).',
  tags: ['profile'],
  parameters: [
    IF_MATCH,
    { name: 'fieldManager', in: 'query', schema: FIELD_MANAGER, description: 'who writes (default: default)' },
  ],
  body: {
    contentType: 'application/json',
    description: 'the whole profile',
    schema: { ...PROFILE_SCHEMA, additionalProperties: false },
  },
  responses: {
    200: ANSWER,
    400: { description: 'the body is not the shape above' },
    401: { description: 'no or a bad token' },
    412: { description: 'If-Match is stale (HUB_ERR_PROFILE_PRECONDITION_FAILED)' },
    428: { description: 'If-Match is required here (HUB_ERR_PROFILE_PRECONDITION_REQUIRED)' },
  },
};

export const APPLY_PROFILE_API: ApiDescription = {
  group: 'public',
  operationId: 'applyProfile',
  summary: "Apply the fields a manager owns to the caller's profile",
  description:
    'Server-side apply: state the fields this field manager cares about. Changing a field another manager owns rejects the whole apply with 409 naming the fields and their managers, unless force=true, which moves ownership to this manager. A field this manager stops stating is released.',
  tags: ['profile'],
  parameters: [
    { name: 'fieldManager', in: 'query', required: true, schema: FIELD_MANAGER },
    { name: 'force', in: 'query', schema: { type: 'boolean', default: false } },
    IF_MATCH,
  ],
  body: {
    contentType: 'application/apply-patch+json',
    description: 'the fields this manager owns',
    schema: { type: 'object', additionalProperties: false, properties: { email: EMAIL, phone: PHONE } },
  },
  responses: {
    200: ANSWER,
    400: { description: 'the body or a parameter is bad' },
    401: { description: 'no or a bad token' },
    409: {
      description: 'fields owned by other managers would change (HUB_ERR_PROFILE_FIELD_CONFLICT); conflicts names them',
    },
    412: { description: 'If-Match is stale' },
    428: { description: 'If-Match is required here' },
  },
};
