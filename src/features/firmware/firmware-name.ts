import { idPattern } from '../../host/ids.js';
/** A firmware name (contract "Firmware"): a safe file name, so it can never leave its tenant's directory. */
export const FIRMWARE_NAME = idPattern(128);

export function isFirmwareName(value: unknown): value is string {
  return typeof value === 'string' && FIRMWARE_NAME.test(value);
}
