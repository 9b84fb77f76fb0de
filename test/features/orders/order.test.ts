import { describe, expect, it } from 'vitest';
import { HubError } from '../../../src/host/errors.js';
import { MAX_LINES, MAX_QUANTITY, MAX_UNIT_PRICE, Order } from '../../../src/features/orders/order.js';

const line = (sku: string, quantity: number, unitPrice: number) => ({ sku, quantity, unitPrice });

function codeOf(fn: () => unknown): { code: string; status: number; errors?: Record<string, string> } {
  try {
    fn();
  } catch (err) {
    if (err instanceof HubError)
      return {
        code: err.code,
        status: err.status,
        errors: err.extensions?.errors as Record<string, string> | undefined,
      };
    throw err;
  }
  throw new Error('expected a HubError');
}

describe('Order aggregate', () => {
  it('a new draft totals its lines in integer minor units', () => {
    const order = Order.draft('o-1', 'c-1', [line('sensor-t1', 3, 1999), line('gateway-g2', 1, 24_950)]);
    expect(order.toJSON()).toEqual({
      orderId: 'o-1',
      customerId: 'c-1',
      status: 'draft',
      lines: [line('sensor-t1', 3, 1999), line('gateway-g2', 1, 24_950)],
      total: 3 * 1999 + 24_950,
      version: 1,
    });
  });

  it('replacing the lines of a draft recomputes the total and bumps the version', () => {
    const edited = Order.draft('o-1', 'c-1', [line('a', 1, 100)]).replace('c-2', [line('b', 2, 250)]);
    expect(edited.toJSON()).toMatchObject({ customerId: 'c-2', total: 500, version: 2, status: 'draft' });
  });

  it('the largest order allowed still has an exact total', () => {
    const lines = Array.from({ length: MAX_LINES }, (_, i) => line(`sku-${i}`, MAX_QUANTITY, MAX_UNIT_PRICE));
    const order = Order.draft('big', 'c', lines);
    expect(Number.isSafeInteger(order.total)).toBe(true);
    expect(order.total).toBe(MAX_LINES * MAX_QUANTITY * MAX_UNIT_PRICE);
  });

  it('confirm moves a draft with lines to confirmed', () => {
    const confirmed = Order.draft('o-1', 'c-1', [line('a', 1, 100)]).confirm();
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed.version).toBe(2);
  });

  it('an empty order cannot be confirmed (409 HUB_ERR_ORDERS_EMPTY)', () => {
    expect(codeOf(() => Order.draft('o-1', 'c-1', []).confirm())).toMatchObject({
      code: 'HUB_ERR_ORDERS_EMPTY',
      status: 409,
    });
  });

  it('a confirmed order refuses every change, confirm included (409 HUB_ERR_ORDERS_CONFIRMED)', () => {
    const confirmed = Order.draft('o-1', 'c-1', [line('a', 1, 100)]).confirm();
    expect(codeOf(() => confirmed.replace('c-1', [line('a', 2, 100)]))).toMatchObject({
      code: 'HUB_ERR_ORDERS_CONFIRMED',
      status: 409,
    });
    expect(codeOf(() => confirmed.confirm())).toMatchObject({ code: 'HUB_ERR_ORDERS_CONFIRMED', status: 409 });
    expect(confirmed.lines).toEqual([line('a', 1, 100)]);
  });

  it('bad lines are refused with 422 naming every bad field', () => {
    const result = codeOf(() =>
      Order.draft('o-1', 'not an id', [line('a', 0, 100), line('a', 1, 1.5), line('b', 2.5, -1), line('', 1, 1)]),
    );
    expect(result).toMatchObject({ code: 'HUB_ERR_ORDERS_INVALID', status: 422 });
    expect(Object.keys(result.errors!).sort()).toEqual(
      [
        'customerId',
        'lines[0].quantity',
        'lines[1].sku',
        'lines[1].unitPrice',
        'lines[2].quantity',
        'lines[2].unitPrice',
        'lines[3].sku',
      ].sort(),
    );
  });

  it('more than MAX_LINES lines are refused', () => {
    const lines = Array.from({ length: MAX_LINES + 1 }, (_, i) => line(`sku-${i}`, 1, 1));
    expect(codeOf(() => Order.draft('o', 'c', lines)).errors).toHaveProperty('lines');
  });

  it('lines cannot be changed from outside the root', () => {
    const input = [line('a', 1, 100)];
    const order = Order.draft('o-1', 'c-1', input);
    input[0] = line('a', 1000, 100);
    expect(order.total).toBe(100);
    expect(() => ((order.lines as unknown as { quantity: number }[])[0]!.quantity = 5)).toThrow(TypeError);
    expect(Object.isFrozen(order.lines)).toBe(true);
  });

  it('restore refuses a stored total that is not the sum of the lines', () => {
    const state = Order.draft('o-1', 'c-1', [line('a', 2, 100)]).toJSON();
    expect(Order.restore(state).toJSON()).toEqual(state);
    expect(() => Order.restore({ ...state, total: 201 })).toThrow(/not the sum/);
  });
});
