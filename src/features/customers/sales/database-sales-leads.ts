import type { Database } from '../../storage/database.js';
import { instantSql } from '../customer-schemas.js';
import type { Lead, LeadStage, LeadValues } from './lead.js';
import type { SalesLeads } from './sales-leads.js';

interface Row {
  customer_id: string;
  name: string;
  company: string | null;
  email: string | null;
  stage: LeadStage;
  stage_since: string;
  version: number;
}

const RETURNING = `customer_id, name, company, email, stage, ${instantSql('stage_since')} as stage_since, version`;

/** Leads in `sales_leads` (row-level security: each unit of work sees its tenant only). */
export class DatabaseSalesLeads implements SalesLeads {
  constructor(private readonly db: Database) {}

  async get(tenantId: string, customerId: string): Promise<Lead | undefined> {
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<Row>(`select ${RETURNING} from sales_leads where customer_id = $1`, [customerId]),
    );
    return rows[0] && toLead(rows[0]);
  }

  async put(tenantId: string, customerId: string, values: LeadValues): Promise<{ lead: Lead; created: boolean }> {
    // One statement: two first PUTs of a customer cannot both insert. The SET reads the row as it was,
    // so stage_since moves only when the stage does.
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<Row>(
        `insert into sales_leads (tenant_id, customer_id, name, company, email, stage, version) values ($1, $2, $3, $4, $5, $6, 1)
         on conflict (tenant_id, customer_id) do update set
           name = excluded.name, company = excluded.company, email = excluded.email,
           stage_since = case when sales_leads.stage = excluded.stage then sales_leads.stage_since else now() end,
           stage = excluded.stage, version = sales_leads.version + 1, updated_at = now()
         returning ${RETURNING}`,
        [tenantId, customerId, values.name, values.company, values.email, values.stage],
      ),
    );
    const lead = toLead(rows[0]!);
    return { lead, created: lead.version === 1 };
  }
}

function toLead(row: Row): Lead {
  return {
    customerId: row.customer_id,
    name: row.name,
    company: row.company,
    email: row.email,
    stage: row.stage,
    stageSince: row.stage_since,
    version: Number(row.version),
  };
}
