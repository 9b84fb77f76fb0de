import type { SubscriberKind } from '../harness/bench-config.js';
import { TELEMETRY_ON_ARGS } from '../harness/otlp-sink.js';

/** A server under test in the fan-out and memory benchmarks, and how subscribers reach it. */
export interface Target {
  id: 'hub-wps' | 'hub-sio' | 'hub-wps-otel' | 'hub-sio-otel' | 'ws-frame' | 'ws-send' | 'sio-rooms' | 'uws';
  label: string;
  process: 'hub-server' | 'ws-anchor-server' | 'socketio-anchor-server' | 'uws-anchor-server';
  kind: SubscriberKind;
  /** The process's JSON argument for a broker (`undefined` = embedded in the process). */
  args(mqttUrl: string | undefined): Record<string, unknown>;
  anchor: boolean;
}

let hubRuns = 0;
const hubArgs = (throttlePerSecond: number) => (mqttUrl: string | undefined) => ({
  mqttUrl,
  throttlePerSecond,
  clientId: `bench-hub-${process.pid}-${++hubRuns}`,
});

/** Throttle:MaxPerSecondPerDevice in the fan-out runs: the contract's maximum, far above any device's rate here. */
export const FANOUT_THROTTLE = 1000;

export const TARGETS: Record<Target['id'], Target> = {
  'hub-wps': {
    id: 'hub-wps',
    label: 'hub Web PubSub',
    process: 'hub-server',
    kind: 'wps',
    args: hubArgs(FANOUT_THROTTLE),
    anchor: false,
  },
  'hub-sio': {
    id: 'hub-sio',
    label: 'hub socket.io',
    process: 'hub-server',
    kind: 'hub-sio',
    args: hubArgs(FANOUT_THROTTLE),
    anchor: false,
  },
  // The same hubs with OpenTelemetry on (metrics, traces sampled at 1 %), exporting to a sink.
  'hub-wps-otel': {
    id: 'hub-wps-otel',
    label: 'hub Web PubSub, telemetry on',
    process: 'hub-server',
    kind: 'wps',
    args: (url) => ({ ...hubArgs(FANOUT_THROTTLE)(url), extraArgs: TELEMETRY_ON_ARGS }),
    anchor: false,
  },
  'hub-sio-otel': {
    id: 'hub-sio-otel',
    label: 'hub socket.io, telemetry on',
    process: 'hub-server',
    kind: 'hub-sio',
    args: (url) => ({ ...hubArgs(FANOUT_THROTTLE)(url), extraArgs: TELEMETRY_ON_ARGS }),
    anchor: false,
  },
  'ws-frame': {
    id: 'ws-frame',
    label: 'raw ws, prebuilt frame',
    process: 'ws-anchor-server',
    kind: 'ws',
    args: (mqttUrl) => ({ mqttUrl, mode: 'frame' }),
    anchor: true,
  },
  'ws-send': {
    id: 'ws-send',
    label: 'raw ws, ws.send(buffer)',
    process: 'ws-anchor-server',
    kind: 'ws',
    args: (mqttUrl) => ({ mqttUrl, mode: 'send' }),
    anchor: true,
  },
  'sio-rooms': {
    id: 'sio-rooms',
    label: 'socket.io rooms',
    process: 'socketio-anchor-server',
    kind: 'sio',
    args: (mqttUrl) => ({ mqttUrl }),
    anchor: true,
  },
  uws: {
    id: 'uws',
    label: 'µWebSockets pub/sub',
    process: 'uws-anchor-server',
    kind: 'ws',
    args: (mqttUrl) => ({ mqttUrl }),
    anchor: true,
  },
};

export { hubArgs };

/** Node flags for every server under test, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
export function serverExecArgv(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
}
