import { Errors } from '../../host/errors.js';
import type { Binder, BindOutcome } from '../../host/pipeline/endpoint.js';
import { Results, type ProblemResult } from '../../host/pipeline/results.js';
import { currentTenant } from '../../host/security/tenant-context.js';
import {
  BadFormError,
  readBufferedForm,
  type BufferedFile,
  type BufferedForm,
  type FormLimits,
} from './buffered-form.js';
import { isFirmwareName } from './firmware-name.js';
import type { FirmwareService } from './firmware-service.js';
import type { QuotaReservation } from './quota-ledger.js';
import { uploadProblem } from './upload-problem.js';

/** `POST /v1/firmware`'s bound argument: the form read in full, and the quota each file part holds. */
export interface FirmwareForm {
  readonly tenantId: string;
  readonly form: BufferedForm;
  /** The reservation of each well-named file part; released, with the form's temporary files, after the result. */
  readonly reservations: ReadonlyMap<BufferedFile, QuotaReservation>;
}

/**
 * The bind step of the buffered upload path (spec "Uploads", "Parameter binding and filters"): the
 * whole multipart body is read here, before the endpoint filters, so they see the bound form. The
 * body limit, the per-section limit and the tenant's quota are checked on every chunk: an oversized
 * upload fails binding with a 413 problem+json (a malformed form with a 400, another content type
 * with a 415) and the handler never runs; nothing read of it is kept.
 */
export function bindFirmwareForm(service: FirmwareService, limits: FormLimits): Binder<FirmwareForm> {
  return async ({ headers, raw, originalPath }): Promise<BindOutcome<FirmwareForm>> => {
    const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'multipart/form-data') {
      return refuse(
        'content-type',
        Results.problem(
          Errors.HTTP_UNSUPPORTED_MEDIA_TYPE,
          'POST /v1/firmware takes multipart/form-data with one file part.',
        ),
      );
    }
    const tenantId = currentTenant();
    if (tenantId === undefined) throw new Error(`${originalPath} ran without a tenant context`);
    // Each well-named file part holds its bytes against the tenant's quota while it is read.
    const reservations = new Map<BufferedFile, QuotaReservation>();
    const release = () => reservations.forEach((reservation) => reservation.release());
    const admit = async (file: BufferedFile) => {
      if (!isFirmwareName(file.filename)) return undefined;
      const reservation = await service.reserve(tenantId, file.filename);
      reservations.set(file, reservation);
      return reservation;
    };
    let form: BufferedForm;
    try {
      form = await readBufferedForm(raw, limits, admit);
    } catch (err) {
      release();
      const problem = uploadProblem(err);
      if (problem) return refuse('form', problem);
      if (err instanceof BadFormError)
        return refuse(
          'form',
          Results.problem(Errors.FIRMWARE_BAD_FORM, `The multipart body is not valid: ${err.message}`),
        );
      throw err;
    }
    return {
      ok: true,
      value: { tenantId, form, reservations },
      dispose: async () => {
        try {
          await form.dispose();
        } finally {
          release();
        }
      },
    };
  };
}

function refuse(name: string, result: ProblemResult): BindOutcome<never> {
  return { ok: false, errors: { [name]: result.detail }, result };
}
