import type { OutputCachePolicy } from '../cache/output-cache-policy.js';
import { etagMatches, type ResponseCachePolicy } from '../cache/response-caching.js';
import { Errors } from '../../host/errors.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import { Results, type Result } from '../../host/pipeline/results.js';
import { ADMIN_ROLE, requireRole } from '../../host/security/authorization.js';
import { currentTenant } from '../../host/security/tenant-context.js';
import { openBufferedFile, type FormLimits } from './buffered-form.js';
import { bindFirmwareForm, type FirmwareForm } from './firmware-form-binder.js';
import { parseRange } from './byte-range.js';
import type { FirmwareRecord } from './firmware-catalogue.js';
import { isFirmwareName } from './firmware-name.js';
import { firmwareTag, type FirmwareService } from './firmware-service.js';
import { limitedBody } from './limited-body.js';
import { uploadProblem } from './upload-problem.js';

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
 * Firmware (contract "Firmware"): `POST /v1/firmware` buffered multipart (read in the bind step, so
 * endpoint filters see the form), `PUT /v1/firmware/{name}`
 * streamed raw body (both role admin), `GET /v1/firmware/{name}` streamed with ETag and Range, and
 * `GET /v1/firmware`, the tenant's list. The host leaves these bodies unread (streamed-body prefix),
 * so each endpoint reads its own and checks the limit and the tenant's quota on every read.
 */
export function mapFirmwareEndpoints(v1: EndpointGroup, service: FirmwareService, limits: FormLimits): void {
  v1.post<FirmwareForm>('/firmware', ({ http, args }) => storeForm(args, http, service), {
    metadata: admin,
    bind: bindFirmwareForm(service, limits),
  });

  v1.put(
    '/firmware/{name}',
    async ({ http }) => {
      const name = http.routeValues.name!;
      if (!isFirmwareName(name)) return badName();
      const tenantId = tenantOf(http);
      const existed = (await service.describe(tenantId, name)) !== undefined;
      const declared = Number(http.headers['content-length']);
      try {
        const record = await service.store(
          tenantId,
          name,
          limitedBody(http.raw, limits.bodyLimitBytes),
          Number.isSafeInteger(declared) ? { declaredBytes: declared } : {},
        );
        return created(http, record, existed ? 200 : 201);
      } catch (err) {
        const problem = uploadProblem(err);
        if (problem) return problem;
        throw err;
      }
    },
    { metadata: admin },
  );

  v1.get(
    '/firmware',
    async ({ http }) => {
      const items = await service.list(tenantOf(http));
      return Results.json({ items: items.map(toWire) });
    },
    { metadata: { outputCache: FIRMWARE_LIST_POLICY.name, responseCache: PRIVATE_REVALIDATED } },
  );

  v1.get('/firmware/{name}', ({ http }) => download(http, service), {
    metadata: { responseCache: PRIVATE_REVALIDATED },
  });
}

/** The handler of the buffered path: the form is bound already (bindFirmwareForm), and released after the result. */
async function storeForm(
  { tenantId, form, reservations }: FirmwareForm,
  http: HttpContext,
  service: FirmwareService,
): Promise<Result> {
  if (form.files.length !== 1)
    return Results.problem(
      Errors.FIRMWARE_BAD_FORM,
      `The form must hold exactly one file part; it holds ${form.files.length}.`,
    );
  const file = form.files[0]!;
  if (!isFirmwareName(file.filename)) return badName();
  try {
    const record = await service.store(tenantId, file.filename, openBufferedFile(file), {
      reservation: reservations.get(file),
    });
    return created(http, record, 201);
  } catch (err) {
    const problem = uploadProblem(err);
    if (problem) return problem;
    throw err;
  }
}

async function download(http: HttpContext, service: FirmwareService): Promise<Result> {
  const name = http.routeValues.name!;
  const tenantId = tenantOf(http);
  const record = isFirmwareName(name) ? await service.describe(tenantId, name) : undefined;
  if (record === undefined) return notFound();
  const etag = `"${record.sha256}"`;
  const headers: Record<string, string> = {
    etag,
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
  // A matching If-None-Match wins over Range (RFC 9110 §13.2.2): no bytes, and response caching makes it a 304.
  if (etagMatches(http.headers['if-none-match'], etag)) return Results.status(200, headers);
  // If-Range with another validator: the client's part is of an older file, so it gets the whole new one.
  const ifRange = http.headers['if-range'];
  const range = ifRange !== undefined && ifRange !== etag ? 'full' : parseRange(http.headers.range, record.size);
  if (range === 'unsatisfiable') {
    return Results.problem(Errors.HTTP_RANGE_NOT_SATISFIABLE, `The file has ${record.size} bytes.`, undefined, {
      'content-range': `bytes */${record.size}`,
    });
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
const badName = () =>
  Results.problem(
    Errors.FIRMWARE_BAD_NAME,
    'A firmware name is 1–128 letters, digits, _, . or -, starting with a letter or digit.',
  );
