/** The profile's fields (spec "Resources": Profile). */
export const PROFILE_FIELDS = ['email', 'phone'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];
export type ProfileValues = { [F in ProfileField]: string | null };
/** Which field managers own each field (server-side apply); a field nobody set has none. */
export type ManagedFields = Partial<Record<ProfileField, string[]>>;

export interface OwnedProfile {
  readonly values: ProfileValues;
  readonly managed: ManagedFields;
}

export interface Conflict {
  readonly field: ProfileField;
  readonly managers: readonly string[];
}

/**
 * A full-state replace (PUT): every field takes the new value; a field whose value changes becomes
 * the writer's alone, as an update does in server-side apply (no conflicts: a PUT is not an apply).
 */
export function replace(current: OwnedProfile, next: ProfileValues, manager: string): OwnedProfile {
  const managed: ManagedFields = { ...current.managed };
  for (const field of PROFILE_FIELDS) {
    if (next[field] !== current.values[field]) managed[field] = [manager];
  }
  return { values: { ...next }, managed: prune(managed) };
}

/**
 * Server-side apply: the manager states the fields it cares about. A field set to a value other than
 * the current one, owned by another manager, is a conflict; any conflict rejects the whole apply,
 * unless `force`, which makes the applier the field's only owner. Applying the current value shares
 * ownership. A field this manager owned and no longer states is released (and cleared when nobody
 * else owns it).
 */
export function apply(
  current: OwnedProfile,
  stated: Partial<ProfileValues>,
  manager: string,
  force: boolean,
): OwnedProfile | { conflicts: Conflict[] } {
  const conflicts: Conflict[] = [];
  const values: ProfileValues = { ...current.values };
  const managed: ManagedFields = { ...current.managed };
  for (const field of PROFILE_FIELDS) {
    const owners = current.managed[field] ?? [];
    if (field in stated) {
      const value = stated[field] ?? null;
      const others = owners.filter((m) => m !== manager);
      if (value === current.values[field]) {
        managed[field] = owners.includes(manager) ? owners : [...owners, manager];
      } else if (others.length > 0 && !force) {
        conflicts.push({ field, managers: others });
      } else {
        values[field] = value;
        managed[field] = [manager];
      }
    } else if (owners.includes(manager)) {
      const rest = owners.filter((m) => m !== manager);
      managed[field] = rest;
      if (rest.length === 0) values[field] = null;
    }
  }
  return conflicts.length > 0 ? { conflicts } : { values, managed: prune(managed) };
}

function prune(managed: ManagedFields): ManagedFields {
  const out: ManagedFields = {};
  for (const field of PROFILE_FIELDS) if (managed[field]?.length) out[field] = [...managed[field]!].sort();
  return out;
}
