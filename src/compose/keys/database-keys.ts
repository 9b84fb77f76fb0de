import type { KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import type { ResolvedConfig } from '../../host/config/load-config.js';
import { defaultMigrationsDirectory } from '../../features/storage/migrations.js';

/** The database's configuration keys. Units are in the names. */
export const DATABASE_KEYS: readonly KeyDefinition[] = [
  // Set → PostgreSQL through a pool; unset → the embedded PGlite in Database:DataDirectory.
  {
    key: 'ConnectionStrings:postgres',
    doc: 'e.g. `postgres://hub@127.0.0.1:5432/telemetry`; see Persistence (docs/operations.md)',
    defaultDoc: 'unset → the embedded PostgreSQL (PGlite)',
    parse: p.url(['postgres', 'postgresql']),
    secret: true,
  },
  {
    key: 'Database:DataDirectory',
    doc: "the embedded database's files; one process at a time",
    defaultDoc: '`./data`',
    parse: p.str(),
    default: () => './data',
  },
  {
    key: 'Database:MaxConnections',
    doc: 'connections in the PostgreSQL pool',
    parse: p.int(1, 1000),
    default: () => 10,
  },
  {
    key: 'Database:StatementTimeoutSeconds',
    doc: 'the server cancels a longer statement (PostgreSQL)',
    parse: p.num(0.1, 3600),
    default: () => 30,
  },
  {
    key: 'Database:MigrationsDirectory',
    doc: 'where `npm run migrate` and the hub find the migration files',
    defaultDoc: "the package's `migrations/`",
    parse: p.str(),
    default: () => defaultMigrationsDirectory(),
  },
];

export interface DatabaseConfig {
  readonly connectionString: string | undefined;
  readonly dataDirectory: string;
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
  readonly migrationsDirectory: string;
}

export function toDatabaseConfig(resolved: ResolvedConfig): DatabaseConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  return {
    connectionString: v('ConnectionStrings:postgres'),
    dataDirectory: v('Database:DataDirectory'),
    maxConnections: v('Database:MaxConnections'),
    statementTimeoutMs: Math.round(v<number>('Database:StatementTimeoutSeconds') * 1000),
    migrationsDirectory: v('Database:MigrationsDirectory'),
  };
}
