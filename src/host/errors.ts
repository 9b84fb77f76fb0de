/**
 * The error catalogue: every error code the hub answers with, in one place.
 * Codes are `HUB_ERR_<AREA>_<WHAT>`; each is documented in docs/errors.md (a test checks it).
 */
export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly title: string;
}

function define<const K extends string>(
  table: Record<K, readonly [status: number, title: string]>,
): Record<K, ErrorDefinition> {
  const out = {} as Record<K, ErrorDefinition>;
  for (const key of Object.keys(table) as K[]) {
    const [status, title] = table[key];
    out[key] = Object.freeze({ code: `HUB_ERR_${key}`, status, title });
  }
  return Object.freeze(out);
}

export const Errors = define({
  HTTP_NOT_FOUND: [404, 'Not Found'],
  HTTP_METHOD_NOT_ALLOWED: [405, 'Method Not Allowed'],
  HTTP_UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported Media Type'],
  HTTP_BAD_REQUEST: [400, 'Bad Request'],
  HTTP_BAD_HOST: [400, 'Bad Host'],
  HTTP_BODY_TOO_LARGE: [413, 'Payload Too Large'],
  HTTP_HEADERS_TOO_LARGE: [431, 'Request Header Fields Too Large'],
  HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HTTP_UPGRADE_REQUIRED: [426, 'Upgrade Required'],
  HTTP_AMBIGUOUS_ROUTE: [500, 'Ambiguous Route'],
  HTTP_INTERNAL: [500, 'Internal Server Error'],
  HOST_STOPPING: [503, 'Service Stopping'],
  AUTH_UNAUTHENTICATED: [401, 'Unauthorized'],
  AUTH_FORBIDDEN: [403, 'Forbidden'],
  AUTH_INVALID_TOKEN: [401, 'Invalid Token'],
  RATE_LIMITED: [429, 'Too Many Requests'],
  DEVICES_BAD_CURSOR: [400, 'Bad Cursor'],
  DEVICES_NOT_FOUND: [404, 'Device Not Found'],
  HUB_BAD_MESSAGE: [400, 'Bad Message'],
  HUB_GROUP_FORBIDDEN: [403, 'Group Forbidden'],
  HUB_LIMIT: [429, 'Limit Reached'],
  HUB_MESSAGE_TOO_LARGE: [413, 'Message Too Large'],
  HTTP_SERVER_BUSY: [503, 'Server Busy'],
  MGMT_UNAUTHENTICATED: [401, 'Unauthorized'],
  MGMT_BAD_API_VERSION: [400, 'Unsupported API Version'],
  MGMT_UNKNOWN_CONNECTION: [404, 'Unknown Connection'],
  MGMT_BAD_REQUEST: [400, 'Bad Request'],
  FUNC_BAD_BODY: [400, 'Bad Request Body'],
  FUNC_UNKNOWN_CONNECTION: [404, 'Unknown Connection'],
  FUNC_UPSTREAM: [502, 'Upstream Error'],
  CONFIG_INVALID: [500, 'Invalid Configuration'],
  GATEWAY_UNKNOWN_TENANT: [404, 'Unknown Tenant'],
  GATEWAY_NO_READY_INSTANCE: [503, 'No Ready Instance'],
  GATEWAY_CATALOGUE_UNAVAILABLE: [503, 'Tenant Catalogue Unavailable'],
  GATEWAY_UPSTREAM_FAILED: [502, 'Upstream Failed'],
  GATEWAY_UPSTREAM_TIMEOUT: [504, 'Upstream Timeout'],
  HTTP_RANGE_NOT_SATISFIABLE: [416, 'Range Not Satisfiable'],
  FIRMWARE_NOT_FOUND: [404, 'Firmware Not Found'],
  FIRMWARE_BAD_NAME: [400, 'Bad Firmware Name'],
  FIRMWARE_BAD_FORM: [400, 'Bad Firmware Form'],
  FIRMWARE_TOO_LARGE: [413, 'Firmware Too Large'],
  FIRMWARE_QUOTA_EXCEEDED: [413, 'Firmware Quota Exceeded'],
  ORDERS_INVALID: [422, 'Invalid Order'],
  ORDERS_CONFIRMED: [409, 'Order Confirmed'],
  ORDERS_EMPTY: [409, 'Empty Order'],
  ORDERS_NOT_FOUND: [404, 'Order Not Found'],
  ORDERS_BAD_CURSOR: [400, 'Bad Cursor'],
  PROFILE_PRECONDITION_FAILED: [412, 'Precondition Failed'],
  PROFILE_PRECONDITION_REQUIRED: [428, 'Precondition Required'],
  PROFILE_FIELD_CONFLICT: [409, 'Field Conflict'],
  CUSTOMERS_NOT_FOUND: [404, 'Customer Not Found'],
  CUSTOMERS_INVALID: [422, 'Invalid Customer'],
  CUSTOMERS_PAYMENT_CONFLICT: [409, 'Payment Conflict'],
  CUSTOMERS_CURRENCY_LOCKED: [409, 'Currency Locked'],
  CUSTOMERS_TICKET_CLOSED: [409, 'Ticket Closed'],
  CUSTOMERS_BAD_CURSOR: [400, 'Bad Cursor'],
});

export type ErrorKey = keyof typeof Errors;

/** An error that knows its catalogue entry; anything else thrown becomes HTTP_INTERNAL. */
export class HubError extends Error {
  readonly definition: ErrorDefinition;
  /** Extra members of the problem body (e.g. `errors` for binding failures). */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(key: ErrorKey, detail?: string, extensions?: Record<string, unknown>) {
    const definition = Errors[key];
    super(detail ?? definition.title);
    this.name = 'HubError';
    this.definition = definition;
    this.extensions = extensions;
  }

  get code(): string {
    return this.definition.code;
  }

  get status(): number {
    return this.definition.status;
  }
}
