import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { breakingChanges, type BreakingChange } from './openapi-diff.js';
import { indexPage, versionPage } from './portal.js';

type Doc = Record<string, any>;

export interface ApiCheckOptions {
  /** The public document as the hub generates it now. */
  readonly document: Doc;
  /** The archive: `public-{version}.json` per published version. */
  readonly publishedDir: string;
  /** `{ "acknowledged": [{ "id", "reason" }] }`. */
  readonly acknowledgedFile: string;
  readonly portalDir: string;
}

export interface ApiCheckResult {
  readonly ok: boolean;
  readonly lintErrors: string[];
  readonly lintWarnings: string[];
  readonly breaks: BreakingChange[];
  readonly acknowledged: BreakingChange[];
  readonly baseline: string | undefined;
  /** Set when info.version does not move with the document (changed but not raised, or lower than published). */
  readonly versionProblem: string | undefined;
}

/**
 * The build step of the spec's Versioning section: lint the public document (Redocly's
 * `recommended` OpenAPI rules, the validator the typed client's generator uses; errors fail), diff it against the last published version (a breaking change fails unless
 * acknowledged), and on success archive it as `public-{version}.json` and build the portal pages.
 */
export async function apiCheck(options: ApiCheckOptions): Promise<ApiCheckResult> {
  const findings = await lintFromString({
    source: JSON.stringify(options.document, null, 2),
    absoluteRef: 'public.json',
    config: await createConfig({ extends: ['recommended'] }),
  });
  const line = (f: (typeof findings)[number]) => `${f.ruleId} at ${f.location[0]?.pointer ?? '(root)'}: ${f.message}`;
  const lintErrors = findings.filter((f) => f.severity === 'error').map(line);
  const lintWarnings = findings.filter((f) => f.severity === 'warn').map(line);

  const archived = archivedVersions(options.publishedDir);
  const baseline = archived.at(-1);
  const breaks = baseline
    ? breakingChanges(readJson(join(options.publishedDir, `public-${baseline}.json`)), options.document)
    : [];
  const acknowledgedIds = new Set(
    existsSync(options.acknowledgedFile)
      ? ((readJson(options.acknowledgedFile).acknowledged ?? []) as { id: string }[]).map((a) => a.id)
      : [],
  );
  const acknowledged = breaks.filter((b) => acknowledgedIds.has(b.id));
  const open = breaks.filter((b) => !acknowledgedIds.has(b.id));
  const versionProblem = baseline ? checkVersion(options.document, baseline, options.publishedDir) : undefined;
  const ok = lintErrors.length === 0 && open.length === 0 && versionProblem === undefined;
  if (ok) {
    mkdirSync(options.publishedDir, { recursive: true });
    writeFileSync(
      join(options.publishedDir, `public-${String(options.document.info.version)}.json`),
      JSON.stringify(options.document, null, 2) + '\n',
    );
    mkdirSync(options.portalDir, { recursive: true });
    const versions = archivedVersions(options.publishedDir);
    for (const v of versions)
      writeFileSync(
        join(options.portalDir, `${v}.html`),
        versionPage(readJson(join(options.publishedDir, `public-${v}.json`))),
      );
    writeFileSync(join(options.portalDir, 'index.html'), indexPage([...versions].reverse()));
  }
  return { ok, lintErrors, lintWarnings, breaks: open, acknowledged, baseline, versionProblem };
}

/** A published version is immutable: a changed document needs a higher info.version. */
function checkVersion(document: Doc, baseline: string, publishedDir: string): string | undefined {
  const version = String(document.info?.version);
  if (!/^\d+\.\d+\.\d+$/.test(version)) return `info.version ${version} is not MAJOR.MINOR.PATCH`;
  const order = compareVersions(version, baseline);
  if (order < 0) return `info.version ${version} is lower than the published ${baseline}`;
  if (
    order === 0 &&
    JSON.stringify(readJson(join(publishedDir, `public-${baseline}.json`))) !== JSON.stringify(document)
  ) {
    return `the public document changed but info.version is still ${baseline}: raise the minor (a compatible change) or the major (a breaking one)`;
  }
  return undefined;
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
}

/** Archived versions, oldest first (numeric semver order). */
export function archivedVersions(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const versions = readdirSync(dir).flatMap((f) => /^public-(\d+\.\d+\.\d+)\.json$/.exec(f)?.[1] ?? []);
  return versions.sort(compareVersions);
}

function readJson(file: string): Doc {
  return JSON.parse(readFileSync(file, 'utf8')) as Doc;
}
