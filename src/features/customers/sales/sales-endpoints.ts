import { HubError } from '../../../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../../host/pipeline/endpoint-builder.js';
import { Results } from '../../../host/pipeline/results.js';
import { customerWriter, NO_STORE, tenantOf } from '../customer-http.js';
import type { LeadStage } from './lead.js';
import { GET_SALES_LEAD_API, PUT_SALES_LEAD_API } from './sales-api.js';
import { SALES_LEADS } from './sales-leads.js';

type LeadBody = { name: string; company?: string | null; email?: string | null; stage: LeadStage };

/** `PUT|GET /v1/customers/{customerId}/sales`: the customer as a lead. */
export function mapSalesEndpoints(v1: EndpointGroup): void {
  v1.put<BoundRequest<Record<string, never>, LeadBody>>(
    '/customers/{customerId}/sales',
    async ({ http, args }) => {
      const { name, company = null, email = null, stage } = args.body;
      const { lead, created } = await http.services
        .resolve(SALES_LEADS)
        .put(tenantOf(http.originalPath), args.params.customerId!, {
          name,
          company,
          email,
          stage,
        });
      return Results.json(lead, created ? 201 : 200, NO_STORE);
    },
    describedEndpoint(PUT_SALES_LEAD_API, { metadata: { policies: [customerWriter] } }),
  );

  v1.get<BoundRequest>(
    '/customers/{customerId}/sales',
    async ({ http, args }) => {
      const lead = await http.services.resolve(SALES_LEADS).get(tenantOf(http.originalPath), args.params.customerId!);
      if (!lead) throw new HubError('CUSTOMERS_NOT_FOUND', `Sales has no customer ${args.params.customerId!}.`);
      return Results.json(lead, 200, NO_STORE);
    },
    describedEndpoint(GET_SALES_LEAD_API),
  );
}
