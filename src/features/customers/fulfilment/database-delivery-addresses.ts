import type { Database } from '../../storage/database.js';
import type { DeliveryAddress, FulfilmentCustomer } from './delivery-address.js';
import type { DeliveryAddresses } from './delivery-addresses.js';

interface Row {
  customer_id: string;
  recipient: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postal_code: string;
  country: string;
  phone: string | null;
  version: number;
}

const COLUMNS = 'customer_id, recipient, line1, line2, city, region, postal_code, country, phone, version';

/** Addresses in `delivery_addresses` (row-level security: each unit of work sees its tenant only). */
export class DatabaseDeliveryAddresses implements DeliveryAddresses {
  constructor(private readonly db: Database) {}

  async get(tenantId: string, customerId: string): Promise<FulfilmentCustomer | undefined> {
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<Row>(`select ${COLUMNS} from delivery_addresses where customer_id = $1`, [customerId]),
    );
    return rows[0] && toCustomer(rows[0]);
  }

  async put(
    tenantId: string,
    customerId: string,
    a: DeliveryAddress,
  ): Promise<{ customer: FulfilmentCustomer; created: boolean }> {
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<Row>(
        `insert into delivery_addresses (tenant_id, customer_id, recipient, line1, line2, city, region, postal_code, country, phone, version)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1)
         on conflict (tenant_id, customer_id) do update set
           recipient = excluded.recipient, line1 = excluded.line1, line2 = excluded.line2, city = excluded.city, region = excluded.region,
           postal_code = excluded.postal_code, country = excluded.country, phone = excluded.phone,
           version = delivery_addresses.version + 1, updated_at = now()
         returning ${COLUMNS}`,
        [tenantId, customerId, a.recipient, a.line1, a.line2, a.city, a.region, a.postalCode, a.country, a.phone],
      ),
    );
    const customer = toCustomer(rows[0]!);
    return { customer, created: customer.version === 1 };
  }
}

function toCustomer(row: Row): FulfilmentCustomer {
  return {
    customerId: row.customer_id,
    deliveryAddress: {
      recipient: row.recipient,
      line1: row.line1,
      line2: row.line2,
      city: row.city,
      region: row.region,
      postalCode: row.postal_code,
      country: row.country,
      phone: row.phone,
    },
    version: Number(row.version),
  };
}
