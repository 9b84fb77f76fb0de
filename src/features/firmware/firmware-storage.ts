import type { Readable } from 'node:stream';

/** What a finished write stored. `sha256` is lowercase hex. */
export interface StoredFile {
  size: number;
  sha256: string;
}

/**
 * One file being written: chunks in order, then `seal` (all written, not yet visible), then `commit`
 * (it replaces any file of that name), or `abort` at any point.
 */
export interface FirmwareWriter {
  /** Resolves once the chunk is handed to storage, so a caller awaiting it holds at most one chunk. */
  write(chunk: Buffer): Promise<void>;
  /** No more chunks: what the file will be, known before anyone can see it. */
  seal(): Promise<StoredFile>;
  /** Makes the file visible, sealing it first when not yet sealed. */
  commit(): Promise<StoredFile>;
  /** Removes what was written; nothing of it stays. Safe to call more than once. */
  abort(): Promise<void>;
}

/** Byte range, both ends inclusive, as HTTP ranges count. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where firmware bytes live, per tenant. A writer's bytes are invisible until commit, which swaps
 * the whole file in at once: a reader sees the old file or the new one, never a mix.
 */
export interface FirmwareStorage {
  begin(tenantId: string, name: string): Promise<FirmwareWriter>;
  /** The file's bytes (or a range of them); undefined when there is no such file. */
  open(tenantId: string, name: string, range?: ByteRange): Promise<Readable | undefined>;
}
