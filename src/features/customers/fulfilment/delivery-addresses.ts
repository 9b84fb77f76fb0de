import { serviceKey } from '../../../host/container/service-key.js';
import type { DeliveryAddress, FulfilmentCustomer } from './delivery-address.js';

/**
 * The fulfilment context's customers, one tenant per call (the port; the database one is
 * DatabaseDeliveryAddresses). The fulfilment worker reads an order's address through `get`, by the
 * order's customer id only.
 */
export interface DeliveryAddresses {
  get(tenantId: string, customerId: string): Promise<FulfilmentCustomer | undefined>;
  /** Creates or replaces the address; `created` says which. */
  put(
    tenantId: string,
    customerId: string,
    address: DeliveryAddress,
  ): Promise<{ customer: FulfilmentCustomer; created: boolean }>;
}

export const DELIVERY_ADDRESSES = serviceKey<DeliveryAddresses>('deliveryAddresses');
