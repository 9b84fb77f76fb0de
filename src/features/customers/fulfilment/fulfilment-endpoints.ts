import { HubError } from '../../../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../../host/pipeline/endpoint-builder.js';
import { Results } from '../../../host/pipeline/results.js';
import { customerWriter, NO_STORE, tenantOf } from '../customer-http.js';
import type { DeliveryAddress } from './delivery-address.js';
import { DELIVERY_ADDRESSES } from './delivery-addresses.js';
import { GET_DELIVERY_ADDRESS_API, PUT_DELIVERY_ADDRESS_API } from './fulfilment-api.js';

type Optional = 'line2' | 'region' | 'phone';
type AddressBody = { deliveryAddress: Omit<DeliveryAddress, Optional> & Partial<Pick<DeliveryAddress, Optional>> };

/** `PUT|GET /v1/customers/{customerId}/fulfilment`: the customer as a delivery address. */
export function mapFulfilmentEndpoints(v1: EndpointGroup): void {
  v1.put<BoundRequest<Record<string, never>, AddressBody>>(
    '/customers/{customerId}/fulfilment',
    async ({ http, args }) => {
      const a = args.body.deliveryAddress;
      // Field by field: nothing else the client sent becomes part of the address.
      const address: DeliveryAddress = {
        recipient: a.recipient,
        line1: a.line1,
        line2: a.line2 ?? null,
        city: a.city,
        region: a.region ?? null,
        postalCode: a.postalCode,
        country: a.country,
        phone: a.phone ?? null,
      };
      const { customer, created } = await http.services
        .resolve(DELIVERY_ADDRESSES)
        .put(tenantOf(http.originalPath), args.params.customerId!, address);
      return Results.json(customer, created ? 201 : 200, NO_STORE);
    },
    describedEndpoint(PUT_DELIVERY_ADDRESS_API, { metadata: { policies: [customerWriter] } }),
  );

  v1.get<BoundRequest>(
    '/customers/{customerId}/fulfilment',
    async ({ http, args }) => {
      const customer = await http.services
        .resolve(DELIVERY_ADDRESSES)
        .get(tenantOf(http.originalPath), args.params.customerId!);
      if (!customer)
        throw new HubError(
          'CUSTOMERS_NOT_FOUND',
          `Fulfilment has no delivery address for customer ${args.params.customerId!}.`,
        );
      return Results.json(customer, 200, NO_STORE);
    },
    describedEndpoint(GET_DELIVERY_ADDRESS_API),
  );
}
