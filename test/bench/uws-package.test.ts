import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  integrityOf,
  loadUws,
  prepareUws,
  UWS_ADDON,
  UWS_PACKAGE,
  type FetchTarball,
} from '../../bench/harness/uws-package.js';

/**
 * The bench's µWebSockets anchor is not an npm dependency: the bench fetches its package on demand
 * into an ignored cache, unpacks it only when the tarball's sha512 is the pinned one, and runs
 * without the anchor (printing why) when it cannot. Tarballs here are made locally: no network.
 */
describe('the µWebSockets anchor package, fetched on demand', () => {
  const root = mkdtempSync(join(tmpdir(), 'uws-package-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let made = 0;

  /** A tarball shaped like npm's (`package/…`) with these files. */
  function tarball(files: Record<string, string>): string {
    const stage = join(root, `stage-${++made}`);
    mkdirSync(join(stage, 'package'), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(stage, 'package', name), text);
    const file = join(root, `pkg-${made}.tgz`);
    execFileSync('tar', ['-czf', file, '-C', stage, 'package']);
    return file;
  }
  const complete = () =>
    tarball({
      'package.json': JSON.stringify({ name: 'uwebsockets', version: '3.0.6', main: 'uws.js' }),
      LICENSE: 'Apache-2.0',
      'uws.js': 'module.exports = { fake: "uws" };',
      [UWS_ADDON]: 'this platform',
      'uws_plan9_mips_1.node': 'another platform',
    });
  /** Serves `file` as the fetched tarball and counts the fetches. */
  const serving = (file: string) => {
    const fetcher = Object.assign(
      (async (_spec, dir) => {
        fetcher.calls++;
        copyFileSync(file, join(dir, 'fetched.tgz'));
        return join(dir, 'fetched.tgz');
      }) as FetchTarball,
      { calls: 0 },
    );
    return fetcher;
  };
  const leftovers = () => readdirSync(root).filter((n) => n.includes('.partial-'));

  it('pins a version and a sha512 integrity', () => {
    expect(UWS_PACKAGE.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(UWS_PACKAGE.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it('unpacks a tarball with the pinned integrity, only this platform’s addon, once', async () => {
    const file = complete();
    const pkg = { name: 'uwebsockets', version: '3.0.6', integrity: await integrityOf(file) };
    const dir = join(root, 'ok');
    const fetch = serving(file);
    expect(await prepareUws({ pkg, dir, fetchTarball: fetch })).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(['.integrity', 'LICENSE', 'package.json', UWS_ADDON, 'uws.js'].sort());
    expect(loadUws(dir)).toEqual({ fake: 'uws' });
    // Kept: the next run loads it without fetching.
    expect(await prepareUws({ pkg, dir, fetchTarball: fetch })).toBeUndefined();
    expect(fetch.calls).toBe(1);
    expect(leftovers()).toEqual([]);
  });

  it('refuses a tarball whose sha512 is not the pinned one, and unpacks nothing', async () => {
    const dir = join(root, 'tampered');
    const note = await prepareUws({ pkg: { ...UWS_PACKAGE }, dir, fetchTarball: serving(complete()) });
    expect(note).toMatch(
      /^µWebSockets anchor skipped: uwebsockets@3\.0\.6's tarball is not the pinned one \(integrity sha512-/,
    );
    expect(existsSync(dir)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('skips the anchor with a note when the package cannot be fetched (no network)', async () => {
    const dir = join(root, 'offline');
    const offline: FetchTarball = async () => {
      throw new Error('npm error code ENOTFOUND\nnpm error network request failed');
    };
    expect(await prepareUws({ dir, fetchTarball: offline })).toBe(
      'µWebSockets anchor skipped: uwebsockets@3.0.6 could not be fetched (npm error code ENOTFOUND)',
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('skips the anchor with a note when the package has no build for this platform', async () => {
    const file = tarball({ 'package.json': '{}', LICENSE: '', 'uws.js': '', 'uws_plan9_mips_1.node': '' });
    const pkg = { name: 'uwebsockets', version: '3.0.6', integrity: await integrityOf(file) };
    const dir = join(root, 'no-build');
    expect(await prepareUws({ pkg, dir, fetchTarball: serving(file) })).toMatch(
      /^µWebSockets anchor skipped: uwebsockets@3\.0\.6 has no build for /,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('skips the anchor with a note when the unpacked addon does not load (e.g. another glibc)', async () => {
    const file = tarball({
      'package.json': '{"main":"uws.js"}',
      LICENSE: '',
      'uws.js': 'throw new Error("GLIBC_2.38 not found")',
      [UWS_ADDON]: '',
    });
    const pkg = { name: 'uwebsockets', version: '3.0.6', integrity: await integrityOf(file) };
    expect(await prepareUws({ pkg, dir: join(root, 'glibc'), fetchTarball: serving(file) })).toBe(
      'µWebSockets anchor skipped: uwebsockets@3.0.6 does not load here (GLIBC_2.38 not found)',
    );
  });
});
