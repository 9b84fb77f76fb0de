import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { BodyTooLargeError, limitedBody } from './limited-body.js';

export interface FormLimits {
  /** The whole body (the server body limit for this endpoint). */
  bodyLimitBytes: number;
  /** One section (part) of the form: 128 MiB per the specification. */
  sectionLimitBytes: number;
  /** A file stays in memory up to this (64 KB per the specification), and goes to a temporary file beyond. */
  memoryLimitBytes: number;
  /** Where temporary files go. */
  tempDir: string;
}

/** A file part read in full: in memory, or in a temporary file that `BufferedForm.dispose` deletes. */
export interface BufferedFile {
  fieldName: string;
  filename: string;
  size: number;
  /** The bytes, when they stayed in memory. */
  memory?: Buffer;
  /** The temporary file holding the bytes otherwise. */
  tempPath?: string;
}

export interface BufferedForm {
  files: BufferedFile[];
  fields: Map<string, string>;
  /** Deletes the temporary files; call once the handler is done with them. */
  dispose(): Promise<void>;
}

/** What a file part's bytes count against while they are read (a quota): `reach` throws to refuse the upload there. */
export interface FileAdmission {
  reach(totalBytes: number): void;
}

/** Asked as each file part begins, before its bytes are read; throws to refuse the upload at once. */
export type AdmitFile = (file: BufferedFile) => Promise<FileAdmission | undefined>;

/** The multipart body is not a well-formed form (→ 400). */
export class BadFormError extends Error {}

/** Form fields are names and small values: never buffered beyond this. */
const FIELD_LIMIT_BYTES = 64 * 1024;

/**
 * The buffered path (spec "Uploads"): reads the whole multipart body before the handler runs. Each
 * file stays in memory up to `memoryLimitBytes`, then goes to a temporary file; the body limit and
 * the per-section limit are checked on every chunk read, so an oversized upload fails here, during
 * binding, with BodyTooLargeError, and every temporary file made so far is deleted first. `admit`
 * sees each file part as it begins and may refuse it then or at any chunk (a quota), the same way.
 */
export async function readBufferedForm(
  req: IncomingMessage,
  limits: FormLimits,
  admit?: AdmitFile,
): Promise<BufferedForm> {
  const files: BufferedFile[] = [];
  const fields = new Map<string, string>();
  const temps: string[] = [];
  const pending: Promise<unknown>[] = [];
  const streams: Readable[] = [];
  let failure: Error | undefined;
  const fail = (err: Error) => void (failure ??= err);

  let parser: busboy.Busboy;
  try {
    // preservePath: a filename with a path is refused by the name check rather than silently cut to its last part.
    parser = busboy({
      headers: req.headers,
      preservePath: true,
      limits: { fileSize: limits.sectionLimitBytes, fieldSize: FIELD_LIMIT_BYTES, fields: 100, parts: 101 },
    });
  } catch (err) {
    throw new BadFormError((err as Error).message);
  }
  parser.on('file', (fieldName, stream, info) => {
    const file: BufferedFile = { fieldName, filename: info.filename ?? '', size: 0 };
    files.push(file);
    streams.push(stream);
    // Past the section limit busboy drops the rest of the part; fail now, not when the part ends.
    stream.once('limit', () =>
      fail(new BodyTooLargeError(limits.sectionLimitBytes, `Form section ${JSON.stringify(fieldName)}`)),
    );
    pending.push(bufferFile(stream, file, limits, temps, admit, fail).catch(fail));
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(new BodyTooLargeError(FIELD_LIMIT_BYTES, `Form field ${JSON.stringify(name)}`));
    else fields.set(name, value);
  });
  parser.on('partsLimit', () => fail(new BadFormError('The form has too many parts.')));
  parser.on('fieldsLimit', () => fail(new BadFormError('The form has too many fields.')));
  const finished = new Promise<void>((resolve, reject) => {
    parser.once('close', resolve);
    parser.once('error', (err: Error) => {
      const bad = new BadFormError(err.message);
      fail(bad);
      reject(bad);
    });
  });
  finished.catch(() => undefined);

  try {
    for await (const chunk of limitedBody(req, limits.bodyLimitBytes)) {
      if (failure) break;
      if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
    }
    if (failure) throw failure;
    parser.end();
    await finished;
    await Promise.all(pending);
    if (failure) throw failure;
  } catch (err) {
    parser.destroy();
    for (const stream of streams) stream.destroy();
    await Promise.allSettled(pending);
    await Promise.all(temps.map((path) => rm(path, { force: true })));
    throw err;
  }
  return {
    files,
    fields,
    dispose: async () => void (await Promise.all(temps.map((path) => rm(path, { force: true })))),
  };
}

/**
 * Reads one file part: in memory until it passes the memory limit, then into a temporary file. A part
 * `admit` refuses is read on to its end and dropped, so the parser behind it never waits on it.
 */
async function bufferFile(
  stream: Readable & { truncated?: boolean },
  file: BufferedFile,
  limits: FormLimits,
  temps: string[],
  admit: AdmitFile | undefined,
  fail: (err: Error) => void,
): Promise<void> {
  let memory: Buffer[] = [];
  let handle: FileHandle | undefined;
  let limited = false;
  let refused = false;
  const refuse = (err: unknown) => {
    refused = true;
    memory = [];
    fail(err as Error);
  };
  stream.once('limit', () => (limited = true));
  let admission: FileAdmission | undefined;
  try {
    admission = await admit?.(file);
  } catch (err) {
    refuse(err);
  }
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (refused) continue;
      file.size += chunk.length;
      try {
        admission?.reach(file.size);
      } catch (err) {
        refuse(err);
        continue;
      }
      if (handle === undefined && file.size > limits.memoryLimitBytes) {
        const path = join(limits.tempDir, `telemetry-hub-upload-${randomUUID()}`);
        temps.push(path);
        handle = await open(path, 'wx', 0o600);
        file.tempPath = path;
        for (const held of memory) await handle.write(held);
        memory = [];
      }
      if (handle !== undefined) await handle.write(chunk);
      else memory.push(chunk);
    }
  } finally {
    await handle?.close();
  }
  if (refused) return;
  if (limited || stream.truncated)
    throw new BodyTooLargeError(limits.sectionLimitBytes, `Form section ${JSON.stringify(file.fieldName)}`);
  if (handle === undefined) file.memory = Buffer.concat(memory);
}

/** The bytes of a buffered file, as a stream. */
export function openBufferedFile(file: BufferedFile): Readable {
  return file.tempPath !== undefined
    ? createReadStream(file.tempPath, { highWaterMark: 64 * 1024 })
    : Readable.from([file.memory ?? Buffer.alloc(0)]);
}
