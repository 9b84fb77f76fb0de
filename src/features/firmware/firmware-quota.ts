/** How much firmware one tenant may keep (`Firmware:MaxBytesPerTenant`, `Firmware:MaxFilesPerTenant`). */
export interface FirmwareQuota {
  readonly maxBytes: number;
  readonly maxFiles: number;
}

/** An upload would take its tenant's firmware past the quota: answered 413, and nothing of it is kept. */
export class FirmwareQuotaExceededError extends Error {
  constructor(
    readonly quota: FirmwareQuota,
    what: 'bytes' | 'files',
  ) {
    super(
      what === 'bytes'
        ? `This upload would take your tenant's firmware past its quota of ${quota.maxBytes} bytes; nothing of it was kept.`
        : `This upload would take your tenant's firmware past its quota of ${quota.maxFiles} files; nothing of it was kept. Replace an existing file instead.`,
    );
    this.name = 'FirmwareQuotaExceededError';
  }
}

/**
 * The one quota rule, for the upload in flight and for its commit alike: a tenant's firmware, as it
 * would be with the upload (a replaced file counting at its new size only), stays within both limits.
 */
export function checkQuota(quota: FirmwareQuota, bytes: number, files: number): void {
  if (files > quota.maxFiles) throw new FirmwareQuotaExceededError(quota, 'files');
  if (bytes > quota.maxBytes) throw new FirmwareQuotaExceededError(quota, 'bytes');
}
