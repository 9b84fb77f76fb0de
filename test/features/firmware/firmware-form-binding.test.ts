// Spec "Uploads" (buffered path) with "Parameter binding and filters": POST /v1/firmware's form is
// read in the bind step, so endpoint filters see it, and an oversized section is refused there.
// The endpoints are mapped a second time under the streamed-body prefix with a filter around them
// and a small section limit; the hub around them is the real one.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointFilter } from '../../../src/host/pipeline/endpoint.js';
import type { FirmwareForm } from '../../../src/features/firmware/firmware-form-binder.js';
import { mapFirmwareEndpoints } from '../../../src/features/firmware/firmware-endpoints.js';
import type { FirmwareService } from '../../../src/features/firmware/firmware-service.js';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { send } from './upload-client.js';

const SECTION_LIMIT = 100 * 1024;
const BASE = '/v1/firmware/filtered';

interface Seen {
  status: number;
  bindingErrors: Record<string, string> | undefined;
  files: { field: string; filename: string; size: number; onDisk: boolean }[];
  fields: Record<string, string>;
}

/** A form with text fields and file parts, as a browser sends it. */
function form(parts: ({ field: string; value: string } | { field: string; filename: string; content: Buffer })[]) {
  const boundary = `----hubbind${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      'filename' in part
        ? `form-data; name="${part.field}"; filename="${part.filename}"`
        : `form-data; name="${part.field}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push('filename' in part ? part.content : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('firmware form bound in the bind step', () => {
  let hub: RunningApp;
  let storage: string;
  let temp: string;
  let admin: string;
  const seen: Seen[] = [];
  let stores = 0;

  const observe: EndpointFilter = async (ictx, next) => {
    const bound = ictx.args as FirmwareForm | undefined;
    seen.push({
      status: ictx.http.response.status,
      bindingErrors: ictx.bindingErrors,
      files: (bound?.form.files ?? []).map((f) => ({
        field: f.fieldName,
        filename: f.filename,
        size: f.size,
        onDisk: f.tempPath !== undefined && existsSync(f.tempPath),
      })),
      fields: Object.fromEntries(bound?.form.fields ?? []),
    });
    return next();
  };

  beforeAll(async () => {
    storage = mkdtempSync(join(tmpdir(), 'fw-bind-'));
    temp = mkdtempSync(join(tmpdir(), 'fw-bind-temp-'));
    hub = await startApp([`--Storage:Path=${storage}`, `--Storage:TempPath=${temp}`], (app) => {
      // The same service (the container makes it once extend has run), counting the handler's one call into it.
      const counted = {
        reserve: (tenantId: string, name: string) => app.firmware.reserve(tenantId, name),
        store: (...args: Parameters<FirmwareService['store']>) => (stores++, app.firmware.store(...args)),
      } as unknown as FirmwareService;
      mapFirmwareEndpoints(app.web.routes.group(BASE).addFilter(observe), counted, {
        bodyLimitBytes: 1024 * 1024,
        sectionLimitBytes: SECTION_LIMIT,
        memoryLimitBytes: 16 * 1024,
        tempDir: temp,
      });
    });
    admin = await userToken('acme', { roles: ['admin'] });
  });
  afterAll(async () => {
    await hub?.stop();
    rmSync(storage, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  });

  const post = (body: { body: Buffer; contentType: string }) =>
    send(
      `${hub.url}${BASE}/firmware`,
      'POST',
      { authorization: `Bearer ${admin}`, 'content-type': body.contentType },
      body.body,
    );

  it('an endpoint filter sees the whole form, fields and files (a large one in its temporary file), before the handler', async () => {
    seen.length = 0;
    stores = 0;
    const content = Buffer.alloc(40 * 1024, 7);
    const res = await post(
      form([
        { field: 'note', value: 'v2 rollout' },
        { field: 'image', filename: 'bound.bin', content },
      ]),
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      name: 'bound.bin',
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
    });
    expect(seen).toEqual([
      {
        status: 200,
        bindingErrors: undefined,
        files: [{ field: 'image', filename: 'bound.bin', size: content.length, onDisk: true }],
        fields: { note: 'v2 rollout' },
      },
    ]);
    expect(stores).toBe(1);
    // Released after the result: the temporary file is gone.
    expect(readdirSync(temp)).toEqual([]);
  });

  it('a section over the section limit is a 413 problem from binding: the filter sees it, the handler never runs, nothing is kept', async () => {
    seen.length = 0;
    stores = 0;
    const res = await post(
      form([{ field: 'image', filename: 'oversized.bin', content: Buffer.alloc(SECTION_LIMIT + 1, 1) }]),
    );
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      status: 413,
      code: 'HUB_ERR_FIRMWARE_TOO_LARGE',
      limitBytes: SECTION_LIMIT,
    });
    expect(seen).toEqual([
      { status: 413, bindingErrors: { form: expect.stringMatching(/exceeds 102400 bytes/) }, files: [], fields: {} },
    ]);
    expect(stores).toBe(0);
    expect(readdirSync(temp)).toEqual([]);
    expect(existsSync(join(storage, 'acme')) ? readdirSync(join(storage, 'acme')) : []).not.toContain('oversized.bin');
  });

  it('another content type is refused in binding too (415), before anything is read', async () => {
    seen.length = 0;
    const res = await send(
      `${hub.url}${BASE}/firmware`,
      'POST',
      { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      Buffer.from('{}'),
    );
    expect(res.status).toBe(415);
    expect(seen.map((s) => s.status)).toEqual([415]);
  });
});
