/** Where a customer's orders are delivered. Optional parts are null when there is none. */
export interface DeliveryAddress {
  readonly recipient: string;
  readonly line1: string;
  readonly line2: string | null;
  readonly city: string;
  readonly region: string | null;
  readonly postalCode: string;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string;
  readonly phone: string | null;
}

/**
 * The Customer as fulfilment sees it: the address its orders ship to. `version` is 1 when created
 * and one more per accepted PUT.
 */
export interface FulfilmentCustomer {
  readonly customerId: string;
  readonly deliveryAddress: DeliveryAddress;
  readonly version: number;
}
