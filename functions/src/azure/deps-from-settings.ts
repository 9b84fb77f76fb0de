import { createFunctionDeps, type FunctionDeps } from '../function-deps.js';
import { readFunctionSettings } from '../settings/function-settings.js';

let cached: { key: string; deps: FunctionDeps } | undefined;

/**
 * The deps for the current app settings, built on first use and kept while the settings stay the
 * same (on Azure they do for a worker's life; tests point the functions at a new hub).
 * Throws FunctionSettingsError for a missing or bad setting.
 */
export function depsFromSettings(env: Readonly<Record<string, string | undefined>>): FunctionDeps {
  const settings = readFunctionSettings(env);
  const key = JSON.stringify([settings.connectionString, settings.hub, settings.jwt]);
  if (cached?.key !== key) cached = { key, deps: createFunctionDeps(settings) };
  return cached.deps;
}
