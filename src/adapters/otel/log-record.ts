import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { SeverityNumber, type LogRecord } from '@opentelemetry/api-logs';
import { systemClock } from '../../host/clock.js';

/** pino's numeric levels as OpenTelemetry severities. */
const SEVERITY: Record<number, [SeverityNumber, string]> = {
  10: [SeverityNumber.TRACE, 'TRACE'],
  20: [SeverityNumber.DEBUG, 'DEBUG'],
  30: [SeverityNumber.INFO, 'INFO'],
  40: [SeverityNumber.WARN, 'WARN'],
  50: [SeverityNumber.ERROR, 'ERROR'],
  60: [SeverityNumber.FATAL, 'FATAL'],
};

/** Fields that become the record's own parts, or are carried by its context, not attributes. */
const OWN = new Set(['level', 'time', 'msg', 'trace_id', 'span_id', 'trace_flags']);

/**
 * One pino line's fields (already redacted and scrubbed) as a log record: the message as body, the
 * level as severity, the other fields as attributes (objects as JSON text); a line's `trace_id` and
 * `span_id` (the request line's) put the record in that trace.
 */
export function toLogRecord(fields: Record<string, unknown>): LogRecord {
  const [severityNumber, severityText] = SEVERITY[fields.level as number] ?? [
    SeverityNumber.UNSPECIFIED,
    String(fields.level),
  ];
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (OWN.has(key) || value === null || value === undefined) continue;
    attributes[key] = typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
  }
  const { trace_id: traceId, span_id: spanId } = fields;
  const context =
    typeof traceId === 'string' && typeof spanId === 'string'
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId,
          traceFlags: fields.trace_flags === '01' ? TraceFlags.SAMPLED : TraceFlags.NONE,
        })
      : undefined;
  return {
    ...(context ? { context } : {}),
    timestamp: typeof fields.time === 'number' ? fields.time : systemClock.now(),
    severityNumber,
    severityText,
    body: typeof fields.msg === 'string' ? fields.msg : '',
    attributes,
  };
}
