import type { Database } from '../storage/database.js';
import { HubError } from '../../host/errors.js';
import { serviceKey } from '../../host/container/service-key.js';
import type { ManagedFields, OwnedProfile, ProfileValues } from './field-ownership.js';

export interface StoredProfile extends OwnedProfile {
  /** 0 before the first write; the ETag. */
  readonly version: number;
}

interface Row {
  email: string | null;
  phone: string | null;
  version: number;
  managed_fields: ManagedFields | string;
}

const EMPTY: StoredProfile = { values: { email: null, phone: null }, managed: {}, version: 0 };

/**
 * Profiles, one per user of a tenant. `write` reads under a row lock, checks the caller's precondition
 * (the version it read: `If-Match`), lets `decide` compute the new state, and stores it with the next
 * version, in one transaction: two writers holding the same version cannot both succeed.
 */
export class ProfileStore {
  constructor(private readonly db: Database) {}

  async get(tenantId: string, userId: string): Promise<StoredProfile> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(
        `select email, phone, version, managed_fields from profiles where user_id = $1`,
        [userId],
      );
      return rows[0] ? toProfile(rows[0]) : EMPTY;
    });
  }

  /**
   * `ifMatch`: the versions the caller accepts (undefined: no precondition; `*`: any existing profile).
   * A mismatch is HUB_ERR_PROFILE_PRECONDITION_FAILED (412) and nothing changes.
   */
  async write(
    tenantId: string,
    userId: string,
    ifMatch: readonly (number | '*')[] | undefined,
    decide: (current: StoredProfile) => OwnedProfile,
  ): Promise<StoredProfile> {
    return this.db.withTenant(tenantId, async (sql) => {
      // The row exists from here on, so the lock below always has something to hold.
      await sql.query(
        `insert into profiles (tenant_id, user_id, version) values ($1, $2, 0) on conflict (tenant_id, user_id) do nothing`,
        [tenantId, userId],
      );
      const { rows } = await sql.query<Row>(
        `select email, phone, version, managed_fields from profiles where user_id = $1 for update`,
        [userId],
      );
      const current = toProfile(rows[0]!);
      if (ifMatch !== undefined && !ifMatch.some((v) => (v === '*' ? current.version > 0 : v === current.version))) {
        throw new HubError(
          'PROFILE_PRECONDITION_FAILED',
          `The profile is at version ${current.version}; read it again and reapply your change.`,
        );
      }
      const next = decide(current);
      const version = current.version + 1;
      await sql.query(
        `update profiles set email = $2, phone = $3, version = $4, managed_fields = $5::jsonb where user_id = $1`,
        [userId, next.values.email, next.values.phone, version, JSON.stringify(next.managed)],
      );
      return { ...next, version };
    });
  }
}

function toProfile(row: Row): StoredProfile {
  const values: ProfileValues = { email: row.email, phone: row.phone };
  const managed =
    typeof row.managed_fields === 'string' ? (JSON.parse(row.managed_fields) as ManagedFields) : row.managed_fields;
  return { values, managed, version: Number(row.version) };
}

export const PROFILE_STORE = serviceKey<ProfileStore>('profileStore');
