import { ID_PATTERN } from '../../host/ids.js';
import { HubError } from '../../host/errors.js';

/** One line of an order; amounts are integer minor units (cents), never floating point. */
export interface OrderLine {
  readonly sku: string;
  readonly quantity: number;
  readonly unitPrice: number;
}

export type OrderStatus = 'draft' | 'confirmed';

/** What the API answers and the database stores (contract "Orders and profile"). */
export interface OrderState {
  readonly orderId: string;
  readonly customerId: string;
  readonly status: OrderStatus;
  readonly lines: readonly OrderLine[];
  readonly total: number;
  /** Increases by one with every accepted change; 1 when created. */
  readonly version: number;
}

/** Lines per order; more is refused, so one request cannot make an unbounded row. */
export const MAX_LINES = 100;
/** Per line; with MAX_LINES and MAX_UNIT_PRICE every total stays below 10^15, a safe integer. */
export const MAX_QUANTITY = 10_000;
/** Minor units (10 000 000.00 in a two-decimal currency). */
export const MAX_UNIT_PRICE = 1_000_000_000;

const ID = ID_PATTERN;

/**
 * The Order aggregate root (spec "Resources": Order, OrderLine). Lines change only through it; the
 * total is always the sum of the lines; a confirmed order never changes; an empty order cannot be
 * confirmed; the customer is referenced by id only. Immutable: every change returns a new Order.
 * Pure: no I/O, no clock.
 */
export class Order {
  private constructor(private readonly state: OrderState) {}

  /** A new draft; throws HUB_ERR_ORDERS_INVALID (422) naming each bad field. */
  static draft(orderId: string, customerId: string, lines: readonly OrderLine[]): Order {
    checkId('orderId', orderId);
    return new Order(build(orderId, customerId, lines, 'draft', 1));
  }

  /** An order read back from storage; a stored total that is not the sum of its lines is refused. */
  static restore(state: OrderState): Order {
    const order = new Order(build(state.orderId, state.customerId, state.lines, state.status, state.version));
    if (order.total !== state.total)
      throw new Error(`order ${state.orderId}: stored total ${state.total} is not the sum of its lines`);
    return order;
  }

  get orderId(): string {
    return this.state.orderId;
  }
  get status(): OrderStatus {
    return this.state.status;
  }
  get total(): number {
    return this.state.total;
  }
  get version(): number {
    return this.state.version;
  }
  get lines(): readonly OrderLine[] {
    return this.state.lines;
  }

  /** Replaces customer and lines of a draft (full-state PUT); 409 once confirmed. */
  replace(customerId: string, lines: readonly OrderLine[]): Order {
    this.#requireDraft();
    return new Order(build(this.state.orderId, customerId, lines, 'draft', this.state.version + 1));
  }

  /** 409 when already confirmed or when it has no lines. */
  confirm(): Order {
    this.#requireDraft();
    if (this.state.lines.length === 0)
      throw new HubError('ORDERS_EMPTY', `Order ${this.state.orderId} has no lines and cannot be confirmed.`);
    return new Order({ ...this.state, status: 'confirmed', version: this.state.version + 1 });
  }

  toJSON(): OrderState {
    return this.state;
  }

  #requireDraft(): void {
    if (this.state.status !== 'draft') {
      throw new HubError('ORDERS_CONFIRMED', `Order ${this.state.orderId} is confirmed; it can no longer change.`);
    }
  }
}

function build(
  orderId: string,
  customerId: string,
  lines: readonly OrderLine[],
  status: OrderStatus,
  version: number,
): OrderState {
  const errors: Record<string, string> = {};
  if (!ID.test(customerId)) errors.customerId = 'must be an id: letters, digits, _ . - (up to 64)';
  if (lines.length > MAX_LINES) errors.lines = `at most ${MAX_LINES} lines`;
  const skus = new Set<string>();
  let total = 0;
  lines.slice(0, MAX_LINES).forEach((line, i) => {
    const at = `lines[${i}]`;
    if (!ID.test(line.sku)) errors[`${at}.sku`] = 'must be an id: letters, digits, _ . - (up to 64)';
    else if (skus.has(line.sku)) errors[`${at}.sku`] = 'appears on another line; one line per sku';
    skus.add(line.sku);
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > MAX_QUANTITY) {
      errors[`${at}.quantity`] = `must be an integer from 1 to ${MAX_QUANTITY}`;
    }
    if (!Number.isInteger(line.unitPrice) || line.unitPrice < 0 || line.unitPrice > MAX_UNIT_PRICE) {
      errors[`${at}.unitPrice`] = `must be an integer number of minor units from 0 to ${MAX_UNIT_PRICE}`;
    }
    total += line.quantity * line.unitPrice;
  });
  if (Object.keys(errors).length > 0)
    throw new HubError('ORDERS_INVALID', 'The order breaks the rules named in errors.', { errors });
  return Object.freeze({
    orderId,
    customerId,
    status,
    // Copied field by field: the caller's objects (and any extra members) never become part of the order.
    lines: Object.freeze(lines.map((l) => Object.freeze({ sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice }))),
    total,
    version,
  });
}

function checkId(field: string, value: string): void {
  if (!ID.test(value))
    throw new HubError('ORDERS_INVALID', `${field} is not an id.`, {
      errors: { [field]: 'must be an id: letters, digits, _ . - (up to 64)' },
    });
}
