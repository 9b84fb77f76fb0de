import { tmpdir } from 'node:os';
import type { KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';

/** Firmware storage and upload limits. */
export const FIRMWARE_KEYS: readonly KeyDefinition[] = [
  // directory of firmware files, one subdirectory per tenant (relative to the working directory;
  // not under Database:DataDirectory, which is the embedded database's own directory)
  {
    key: 'Storage:Path',
    doc: 'firmware files, one directory per tenant (kept out of `Database:DataDirectory`, which belongs to the embedded database)',
    defaultDoc: '`./firmware`',
    parse: p.str(),
    default: () => './firmware',
  },
  // directory of the buffered upload path's temporary files (files over 64 KB while a form is read)
  {
    key: 'Storage:TempPath',
    doc: 'temporary files of multipart uploads (files over 64 KB while the form is read)',
    defaultDoc: 'the system temp directory',
    parse: p.str(),
    default: () => tmpdir(),
  },
  // bytes; the body limit of firmware uploads (PUT raw body, POST whole form), checked on every read
  {
    key: 'Firmware:MaxUploadBytes',
    doc: 'body limit of firmware uploads (PUT raw body, POST whole form), checked on every read; an upload slower than `Http:RequestTimeoutSeconds` is cut, so raise that too for large files on slow links',
    parse: p.int(1, 2 ** 40),
    default: () => 128 * 1024 * 1024,
  },
  // bytes; all of one tenant's firmware files together, checked on every read of an upload and at commit
  {
    key: 'Firmware:MaxBytesPerTenant',
    doc: "bytes of all of one tenant's firmware files together; an upload that would pass it is refused (413 `HUB_ERR_FIRMWARE_QUOTA_EXCEEDED`) while it is read, and nothing of it is kept",
    parse: p.int(1, 2 ** 50),
    default: () => 1024 * 1024 * 1024,
  },
  // firmware files one tenant may keep (a replaced file counts once)
  {
    key: 'Firmware:MaxFilesPerTenant',
    doc: 'firmware files one tenant may keep; a new name beyond it is refused (413 `HUB_ERR_FIRMWARE_QUOTA_EXCEEDED`)',
    parse: p.int(1, 1_000_000),
    default: () => 100,
  },
];
