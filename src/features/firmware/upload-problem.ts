import { Errors } from '../../host/errors.js';
import { Results, type ProblemResult } from '../../host/pipeline/results.js';
import { FirmwareQuotaExceededError } from './firmware-quota.js';
import { BodyTooLargeError, UploadAbortedError } from './limited-body.js';

/**
 * The answer to an upload that failed while it was read, on either path (buffered or streamed), or
 * undefined for any other failure: over the body or section limit or the tenant's quota → 413; the
 * client gone → 400, which nobody reads but which marks the request line 400 instead of a 500.
 */
export function uploadProblem(err: unknown): ProblemResult | undefined {
  if (err instanceof BodyTooLargeError)
    return Results.problem(Errors.FIRMWARE_TOO_LARGE, err.message, { limitBytes: err.limitBytes });
  if (err instanceof FirmwareQuotaExceededError) {
    return Results.problem(Errors.FIRMWARE_QUOTA_EXCEEDED, err.message, {
      quotaBytes: err.quota.maxBytes,
      quotaFiles: err.quota.maxFiles,
    });
  }
  if (err instanceof UploadAbortedError) return Results.problem(Errors.HTTP_BAD_REQUEST, err.message);
  return undefined;
}
