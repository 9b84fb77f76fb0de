import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type {
  ByteRange,
  FirmwareStorage,
  FirmwareWriter,
  StoredFile,
} from '../../features/firmware/firmware-storage.js';

/**
 * Firmware in a directory (`Storage:Path`): `{root}/{tenant}/{name}`. A write goes to a hidden
 * `.{name}.{random}.part` beside it, chunk by chunk, hashed as it goes, and is renamed over the
 * name on commit (atomic on one file system); an abort deletes it. Names and tenant ids are
 * validated ids (no `/`, never starting with `.`), so a path never leaves its tenant's directory
 * and a partial file can never be asked for.
 */
export class DirectoryStorage implements FirmwareStorage {
  constructor(readonly root: string) {}

  async begin(tenantId: string, name: string): Promise<FirmwareWriter> {
    const dir = join(this.root, tenantId);
    await mkdir(dir, { recursive: true });
    const partial = join(dir, `.${name}.${randomUUID()}.part`);
    return new DirectoryWriter(await open(partial, 'wx'), partial, join(dir, name));
  }

  async open(tenantId: string, name: string, range?: ByteRange): Promise<Readable | undefined> {
    // Opened before the stream is handed out, so a missing file is a 404, not a broken 200.
    let handle: FileHandle;
    try {
      handle = await open(join(this.root, tenantId, name), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return createReadStream('', {
      fd: handle,
      ...(range ? { start: range.start, end: range.end } : {}),
      highWaterMark: 64 * 1024,
    });
  }
}

class DirectoryWriter implements FirmwareWriter {
  readonly #hash = createHash('sha256');
  #size = 0;
  #closed = false;
  #sealed: StoredFile | undefined;

  constructor(
    private readonly handle: FileHandle,
    private readonly partial: string,
    private readonly target: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.#hash.update(chunk);
    this.#size += chunk.length;
    let offset = 0;
    while (offset < chunk.length) offset += (await this.handle.write(chunk, offset)).bytesWritten;
  }

  async seal(): Promise<StoredFile> {
    if (this.#sealed === undefined) {
      await this.#close();
      this.#sealed = { size: this.#size, sha256: this.#hash.digest('hex') };
    }
    return this.#sealed;
  }

  async commit(): Promise<StoredFile> {
    const stored = await this.seal();
    await rename(this.partial, this.target);
    return stored;
  }

  async abort(): Promise<void> {
    await this.#close().catch(() => undefined);
    await rm(this.partial, { force: true });
  }

  async #close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.handle.close();
  }
}
