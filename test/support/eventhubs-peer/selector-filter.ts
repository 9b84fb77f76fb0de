/**
 * The start position a receiver asks for, parsed from the `apache.org:selector-filter:string` the SDK
 * puts on the link source (`@azure/event-hubs` eventPosition.js `getEventPositionFilter`):
 * `amqp.annotation.x-opt-offset > '-1'` (earliest), `... x-opt-offset > '@latest'`, `... >= '123'`,
 * `amqp.annotation.x-opt-sequence-number > '41'` and `amqp.annotation.x-opt-enqueued-time > '1700000000000'`.
 */
export interface StartPosition {
  field: 'offset' | 'sequence-number' | 'enqueued-time';
  inclusive: boolean;
  /** The quoted operand as sent: a number, or `@latest` for offsets. */
  value: string;
}

const SELECTOR = /^amqp\.annotation\.x-opt-(offset|sequence-number|enqueued-time)\s*(>=|>)\s*'([^']*)'$/;

/** Undefined when the text is not one of the forms the SDK sends. */
export function parseSelectorFilter(text: string): StartPosition | undefined {
  const match = SELECTOR.exec(text.trim());
  if (!match) return undefined;
  const [, field, operator, value] = match as unknown as [string, StartPosition['field'], string, string];
  if (value !== '@latest' && !/^-?\d+$/.test(value)) return undefined;
  return { field, inclusive: operator === '>=', value };
}

/**
 * The selector text from a link source's filter map. rhea hands the described value back as a typed
 * object whose `.value` is the string (its descriptor 0x468c00000004 is unknown to rhea).
 */
export function selectorText(filter: unknown): string | undefined {
  if (!filter || typeof filter !== 'object') return undefined;
  const entry = (filter as Record<string, unknown>)['apache.org:selector-filter:string'];
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object' && typeof (entry as { value?: unknown }).value === 'string') {
    return (entry as { value: string }).value;
  }
  return undefined;
}
