import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { mapBillingEndpoints } from './billing/billing-endpoints.js';
import { mapFulfilmentEndpoints } from './fulfilment/fulfilment-endpoints.js';
import { mapSalesEndpoints } from './sales/sales-endpoints.js';
import { mapSupportEndpoints } from './support/support-endpoints.js';

/**
 * `/v1/customers/{customerId}/sales|fulfilment|billing|support…`: the Customer of each bounded
 * context under the id orders refer to it with. There is deliberately no `/v1/customers/{id}` of its
 * own: no context owns "the" customer. Each context's store comes from the request's services.
 */
export function mapCustomerEndpoints(v1: EndpointGroup): void {
  mapSalesEndpoints(v1);
  mapFulfilmentEndpoints(v1);
  mapBillingEndpoints(v1);
  mapSupportEndpoints(v1);
}
