import { tmpdir } from 'node:os';
import type { KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';

/** Firmware storage and upload limits. */
export const FIRMWARE_KEYS: readonly KeyDefinition[] = [
  // directory of firmware files, one subdirectory per tenant (relative to the working directory;
  // not under Database:DataDirectory, which is the embedded database's own directory)
  { key: 'Storage:Path', parse: p.str(), default: () => './firmware' },
  // directory of the buffered upload path's temporary files (files over 64 KB while a form is read)
  { key: 'Storage:TempPath', parse: p.str(), default: () => tmpdir() },
  // bytes; the body limit of firmware uploads (PUT raw body, POST whole form), checked on every read
  { key: 'Firmware:MaxUploadBytes', parse: p.int(1, 2 ** 40), default: () => 128 * 1024 * 1024 },
];
