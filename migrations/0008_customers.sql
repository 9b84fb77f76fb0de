-- The Customer, one aggregate per bounded context (spec "Resources": Customer). An order refers to a
-- customer by id only; what the customer is depends on who asks: sales keeps a lead with its pipeline
-- stage, fulfilment a delivery address, billing a credit limit and the payment history, support the
-- ticket history. Each context owns its tables and nothing joins them: the same customer id in two
-- contexts is two aggregates. Tenant tables like every other (0001): tenant_id on every row,
-- row-level security ENABLEd and FORCEd, one policy on app.tenant_id, grants to `app` only for what
-- the code does (payments are never updated or deleted, so `app` may not).

CREATE TABLE sales_leads (
  tenant_id text NOT NULL,
  customer_id text NOT NULL CHECK (customer_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  company text CHECK (length(company) <= 200),
  email text CHECK (length(email) <= 254),
  stage text NOT NULL CHECK (stage IN ('new', 'contacted', 'qualified', 'proposal', 'won', 'lost')),
  -- When the lead entered its stage: time in stage is what a pipeline report reads.
  stage_since timestamptz NOT NULL DEFAULT now(),
  version integer NOT NULL CHECK (version >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, customer_id)
);

CREATE TABLE delivery_addresses (
  tenant_id text NOT NULL,
  customer_id text NOT NULL CHECK (customer_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  recipient text NOT NULL CHECK (length(recipient) BETWEEN 1 AND 200),
  line1 text NOT NULL CHECK (length(line1) BETWEEN 1 AND 200),
  line2 text CHECK (length(line2) <= 200),
  city text NOT NULL CHECK (length(city) BETWEEN 1 AND 100),
  region text CHECK (length(region) <= 100),
  postal_code text NOT NULL CHECK (length(postal_code) BETWEEN 1 AND 16),
  country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  phone text CHECK (length(phone) <= 32),
  version integer NOT NULL CHECK (version >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, customer_id)
);

-- The billing account is the root; payments are appended through it, under its row lock, numbered
-- per account (seq: 1, 2, 3 …, the cursor of the payment history, so it tells nothing of others).
CREATE TABLE billing_accounts (
  tenant_id text NOT NULL,
  customer_id text NOT NULL CHECK (customer_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  credit_limit bigint NOT NULL CHECK (credit_limit >= 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  payment_count integer NOT NULL DEFAULT 0 CHECK (payment_count >= 0),
  version integer NOT NULL CHECK (version >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, customer_id)
);

CREATE TABLE billing_payments (
  tenant_id text NOT NULL,
  customer_id text NOT NULL,
  payment_id text NOT NULL CHECK (payment_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  seq integer NOT NULL CHECK (seq >= 1),
  amount bigint NOT NULL CHECK (amount > 0),
  paid_on date NOT NULL,
  reference text CHECK (length(reference) <= 128),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, customer_id, payment_id),
  UNIQUE (tenant_id, customer_id, seq),
  FOREIGN KEY (tenant_id, customer_id) REFERENCES billing_accounts (tenant_id, customer_id)
);

-- Support's customer is its ticket history; the root numbers the tickets (seq) as billing does.
CREATE TABLE support_customers (
  tenant_id text NOT NULL,
  customer_id text NOT NULL CHECK (customer_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  ticket_count integer NOT NULL CHECK (ticket_count >= 0),
  PRIMARY KEY (tenant_id, customer_id)
);

CREATE TABLE support_tickets (
  tenant_id text NOT NULL,
  customer_id text NOT NULL,
  ticket_id text NOT NULL CHECK (ticket_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  seq integer NOT NULL CHECK (seq >= 1),
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  description text CHECK (length(description) <= 4000),
  status text NOT NULL CHECK (status IN ('open', 'pending', 'resolved', 'closed')),
  priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  version integer NOT NULL CHECK (version >= 1),
  opened_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, customer_id, ticket_id),
  UNIQUE (tenant_id, customer_id, seq),
  FOREIGN KEY (tenant_id, customer_id) REFERENCES support_customers (tenant_id, customer_id)
);

-- The worker copies the delivery address into the fulfilment of a confirmed order: the order ships
-- where the customer lived when it was fulfilled, whatever changes later. `delivery` is 'addressed'
-- (copied) or 'no-address' (the fulfilment context had none: held); null for a draft, which is not
-- fulfilled, and for rows recorded before this migration.
ALTER TABLE fulfilments ADD COLUMN customer_id text;
ALTER TABLE fulfilments ADD COLUMN delivery text CHECK (delivery IN ('addressed', 'no-address'));
ALTER TABLE fulfilments ADD COLUMN delivery_address jsonb;
ALTER TABLE fulfilments ADD CONSTRAINT fulfilments_delivery_address CHECK ((delivery = 'addressed') = (delivery_address IS NOT NULL));
CREATE INDEX fulfilments_held ON fulfilments (tenant_id, customer_id) WHERE delivery = 'no-address';

ALTER TABLE sales_leads ENABLE ROW LEVEL SECURITY;
ALTER TABLE sales_leads FORCE ROW LEVEL SECURITY;
CREATE POLICY sales_leads_tenant ON sales_leads
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE delivery_addresses ENABLE ROW LEVEL SECURITY;
ALTER TABLE delivery_addresses FORCE ROW LEVEL SECURITY;
CREATE POLICY delivery_addresses_tenant ON delivery_addresses
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE billing_accounts ENABLE ROW LEVEL SECURITY;
ALTER TABLE billing_accounts FORCE ROW LEVEL SECURITY;
CREATE POLICY billing_accounts_tenant ON billing_accounts
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE billing_payments ENABLE ROW LEVEL SECURITY;
ALTER TABLE billing_payments FORCE ROW LEVEL SECURITY;
CREATE POLICY billing_payments_tenant ON billing_payments
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE support_customers ENABLE ROW LEVEL SECURITY;
ALTER TABLE support_customers FORCE ROW LEVEL SECURITY;
CREATE POLICY support_customers_tenant ON support_customers
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE support_tickets ENABLE ROW LEVEL SECURITY;
ALTER TABLE support_tickets FORCE ROW LEVEL SECURITY;
CREATE POLICY support_tickets_tenant ON support_tickets
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE ON sales_leads, delivery_addresses, billing_accounts, support_customers, support_tickets TO app;
GRANT SELECT, INSERT ON billing_payments TO app;
