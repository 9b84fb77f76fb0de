import type { OutputCachePolicy } from '../cache/output-cache-policy.js';
import { etagMatches, type ResponseCachePolicy } from '../cache/response-caching.js';
import { Errors } from '../host/errors.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../host/pipeline/http-context.js';
import { Results, type Result } from '../host/pipeline/results.js';
import { ADMIN_ROLE, requireRole } from '../security/authorization.js';
import { currentTenant } from '../security/tenant-context.js';
import { BadFormError, openBufferedFile, readBufferedForm, type FormLimits } from './buffered-form.js';
import { parseRange } from './byte-range.js';
import type { FirmwareRecord } from './firmware-catalog.js';
import { isFirmwareName } from './firmware-name.js';
import { firmwareTag, type FirmwareService } from './firmware-service.js';
import { BodyTooLargeError, limitedBody, UploadAbortedError } from './limited-body.js';

/** The firmware list, output-cached per tenant until an upload of that tenant evicts it. */
export const FIRMWARE_LIST_POLICY: OutputCachePolicy = {
  name: 'firmware-list',
  durationMs: 60_000,
  varyByQuery: [],
  tags: (_ctx, tenantId) => (tenantId === undefined ? [] : [firmwareTag(tenantId)]),
};

/** Tenant data: the user's own client may keep it, and revalidates it (ETag) each time. */
const PRIVATE_REVALIDATED: ResponseCachePolicy = { scope: 'private', maxAgeSeconds: 0 };

const admin = { policies: [requireRole(ADMIN_ROLE)] };

/**
 * Firmware (contract "Firmware"): `POST /v1/firmware` buffered multipart, `PUT /v1/firmware/{name}`
 * streamed raw body (both role admin), `GET /v1/firmware/{name}` streamed with ETag and Range, and
 * `GET /v1/firmware`, the tenant's list. The host leaves these bodies unread (streamed-body prefix),
 * so each endpoint reads its own and checks the limit on every read.
 */
export function mapFirmwareEndpoints(v1: EndpointGroup, service: FirmwareService, limits: FormLimits): void {
  v1.post('/firmware', ({ http }) => uploadForm(http, service, limits), { metadata: admin });

  v1.put('/firmware/{name}', async ({ http }) => {
    const name = http.routeValues.name!;
    if (!isFirmwareName(name)) return badName();
    const tenantId = tenantOf(http);
    const existed = (await service.describe(tenantId, name)) !== undefined;
    try {
      const record = await service.store(tenantId, name, limitedBody(http.raw, limits.bodyLimitBytes));
      return created(http, record, existed ? 200 : 201);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return tooLarge(err);
      if (err instanceof UploadAbortedError) return aborted(err);
      throw err;
    }
  }, { metadata: admin });

  v1.get('/firmware', async ({ http }) => {
    const items = await service.list(tenantOf(http));
    return Results.json({ items: items.map(toWire) });
  }, { metadata: { outputCache: FIRMWARE_LIST_POLICY.name, responseCache: PRIVATE_REVALIDATED } });

  v1.get('/firmware/{name}', ({ http }) => download(http, service), { metadata: { responseCache: PRIVATE_REVALIDATED } });
}

async function uploadForm(http: HttpContext, service: FirmwareService, limits: FormLimits): Promise<Result> {
  const type = (http.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    return Results.problem(Errors.HTTP_UNSUPPORTED_MEDIA_TYPE, 'POST /v1/firmware takes multipart/form-data with one file part.');
  }
  // Binding: the whole form is read before the handler; an oversized one fails here.
  let form;
  try {
    form = await readBufferedForm(http.raw, limits);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return tooLarge(err);
    if (err instanceof UploadAbortedError) return aborted(err);
    if (err instanceof BadFormError) return Results.problem(Errors.FIRMWARE_BAD_FORM, `The multipart body is not valid: ${err.message}`);
    throw err;
  }
  try {
    if (form.files.length !== 1) return Results.problem(Errors.FIRMWARE_BAD_FORM, `The form must hold exactly one file part; it holds ${form.files.length}.`);
    const file = form.files[0]!;
    if (!isFirmwareName(file.filename)) return badName();
    const record = await service.store(tenantOf(http), file.filename, openBufferedFile(file));
    return created(http, record, 201);
  } finally {
    await form.dispose();
  }
}

async function download(http: HttpContext, service: FirmwareService): Promise<Result> {
  const name = http.routeValues.name!;
  const tenantId = tenantOf(http);
  const record = isFirmwareName(name) ? await service.describe(tenantId, name) : undefined;
  if (record === undefined) return notFound();
  const etag = `"${record.sha256}"`;
  const headers: Record<string, string> = { etag, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
  // A matching If-None-Match wins over Range (RFC 9110 §13.2.2): no bytes, and response caching makes it a 304.
  if (etagMatches(http.headers['if-none-match'], etag)) return Results.status(200, headers);
  // If-Range with another validator: the client's part is of an older file, so it gets the whole new one.
  const ifRange = http.headers['if-range'];
  const range = ifRange !== undefined && ifRange !== etag ? 'full' : parseRange(http.headers.range, record.size);
  if (range === 'unsatisfiable') {
    return Results.problem(Errors.HTTP_RANGE_NOT_SATISFIABLE, `The file has ${record.size} bytes.`, undefined, { 'content-range': `bytes */${record.size}` });
  }
  const partial = range !== 'full';
  headers['content-length'] = String(partial ? range.end - range.start + 1 : record.size);
  if (partial) headers['content-range'] = `bytes ${range.start}-${range.end}/${record.size}`;
  const status = partial ? 206 : 200;
  if (http.method === 'HEAD') return Results.status(status, headers);
  const stream = await service.open(tenantId, name, partial ? range : undefined);
  if (stream === undefined) return notFound();
  return Results.stream(stream, headers, status);
}

function tenantOf(http: HttpContext): string {
  const tenantId = currentTenant();
  if (tenantId === undefined) throw new Error(`${http.originalPath} ran without a tenant context`);
  return tenantId;
}

function toWire(record: FirmwareRecord) {
  return { name: record.name, size: record.size, sha256: record.sha256, updatedAt: record.updatedAt };
}

function created(http: HttpContext, record: FirmwareRecord, status: 200 | 201): Result {
  return Results.json({ name: record.name, size: record.size, sha256: record.sha256 }, status, {
    location: `${http.pathBase}/v1/firmware/${record.name}`,
    'cache-control': 'no-store',
  });
}

const notFound = () => Results.problem(Errors.FIRMWARE_NOT_FOUND, 'No firmware of that name in your tenant.');
const badName = () => Results.problem(Errors.FIRMWARE_BAD_NAME, 'A firmware name is 1–128 letters, digits, _, . or -, starting with a letter or digit.');
// Nobody reads it (the connection is gone); it marks the request line 400 instead of a 500 with a stack.
const aborted = (err: UploadAbortedError) => Results.problem(Errors.HTTP_BAD_REQUEST, err.message);
const tooLarge = (err: BodyTooLargeError) => Results.problem(Errors.FIRMWARE_TOO_LARGE, err.message, { limitBytes: err.limitBytes });
