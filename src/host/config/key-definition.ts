import type * as p from './parsers.js';

export const ENVIRONMENTS = ['Development', 'Staging', 'Production'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** What a default may depend on: the environment and the keys resolved before it. */
export interface DefaultContext {
  environment: EnvironmentName;
  get(key: string): unknown;
}

/** For defaults and requirements that differ in Development; shared by every area's key list. */
export const isDevelopment = (ctx: DefaultContext): boolean => ctx.environment === 'Development';
export const notDevelopment = (ctx: DefaultContext): boolean => !isDevelopment(ctx);

/** One configuration key. Each area declares its keys as a list of these; the app composes the lists. */
export interface KeyDefinition {
  /** Canonical spelling; matching is case-insensitive, as in .NET configuration. */
  key: string;
  parse: (raw: p.Raw) => unknown;
  /** Undefined → the key is unset unless `required` says otherwise. */
  default?: (ctx: DefaultContext) => unknown;
  required?: (ctx: DefaultContext) => boolean;
  /** Never logged, never echoed in errors. */
  secret?: boolean;
  /** Why `required` holds, appended to "is required in {Environment}". */
  requiredWhen?: string;
  /** Extra environment variable names, e.g. PORT. */
  envAliases?: string[];
  /** A rule across keys, run on the resolved value; returns the problem, or undefined when fine. */
  check?: (value: unknown, ctx: DefaultContext) => string | undefined;
  /** Resolved after the keys without it, so its default, requirement and check may read them (`ctx.get`). */
  dependent?: boolean;
  /** What the key means, for the configuration reference (docs/configuration.md, generated from these tables). */
  doc?: string;
  /**
   * The default as the reference states it, when the value alone would not say it (it depends on the
   * environment or other keys, or is generated); otherwise the reference shows `default()` in Production.
   */
  defaultDoc?: string;
}
