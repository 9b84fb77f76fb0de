import { Errors } from '../../errors.js';
import { Results, type Result } from '../../pipeline/results.js';
import { refusalDetails, type UpgradeAdmission } from '../upgrade-guard.js';

/** The problem answer for a handshake the upgrade guard refused (429 or 503, with Retry-After). */
export function upgradeRefusal(refusal: Extract<UpgradeAdmission, { ok: false }>): Result {
  const { extensions, headers } = refusalDetails(refusal);
  return Results.problem(Errors[refusal.key], refusal.detail, extensions, headers);
}
