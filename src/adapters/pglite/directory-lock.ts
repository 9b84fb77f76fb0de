import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Another process holds the embedded database's directory. */
export class DirectoryLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly holderPid: number,
  ) {
    super(
      `the embedded database in '${directory}' is in use by process ${holderPid}; ` +
        `stop it, or give this process its own directory with Database:DataDirectory`,
    );
    this.name = 'DirectoryLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive lock on a directory: PGlite opens the same directory from two processes without
 * complaint and the second corrupts it. The lock file holds the owner's PID; a file left by a
 * process that died (SIGKILL, a crash) is taken over. Returns the release function.
 */
export function lockDirectory(directory: string): () => void {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'hub.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
    if (Number.isInteger(holder) && holder !== process.pid && alive(holder))
      throw new DirectoryLockedError(directory, holder);
    if (holder === process.pid) throw new DirectoryLockedError(directory, holder);
    unlinkSync(file);
  }
  throw new Error(`could not lock '${directory}'`);
}
