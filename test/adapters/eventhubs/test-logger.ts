import type { EventHubsSourceLogger } from '../../../src/adapters/eventhubs/eventhubs-source.js';

/** Records log calls so tests can assert on them without printing. */
export class TestLogger implements EventHubsSourceLogger {
  readonly entries: { level: string; msg: string; obj: object }[] = [];
  debug(obj: object, msg: string): void {
    this.entries.push({ level: 'debug', msg, obj });
  }
  info(obj: object, msg: string): void {
    this.entries.push({ level: 'info', msg, obj });
  }
  warn(obj: object, msg: string): void {
    this.entries.push({ level: 'warn', msg, obj });
  }
  messages(level: string): string[] {
    return this.entries.filter((e) => e.level === level).map((e) => e.msg);
  }
}
