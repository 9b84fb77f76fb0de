/** A firmware name (contract "Firmware"): a safe file name, so it can never leave its tenant's directory. */
export const FIRMWARE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function isFirmwareName(value: unknown): value is string {
  return typeof value === 'string' && FIRMWARE_NAME.test(value);
}
