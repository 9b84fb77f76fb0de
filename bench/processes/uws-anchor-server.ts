import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { loadUws } from '../harness/uws-package.js';
import { deviceOfTopic, startAnchorFeed } from './anchor-feed.js';

interface UwsAnchorArgs {
  /** Mosquitto URL; unset → an embedded aedes broker in this process. */
  mqttUrl?: string;
}

interface UwsApp {
  ws(pattern: string, behavior: Record<string, unknown>): UwsApp;
  any(pattern: string, handler: (res: { writeStatus(s: string): { end(): void } }) => void): UwsApp;
  listen(host: string, port: number, cb: (socket: unknown) => void): UwsApp;
  publish(topic: string, message: Buffer, isBinary?: boolean): boolean;
}
interface Uws {
  App(): UwsApp;
  us_socket_local_port(socket: unknown): number;
  DISABLED: number;
}

/**
 * Anchor: µWebSockets' native pub/sub (the `uwebsockets` package, a build of uWebSockets.js that
 * the bench fetches into its cache: harness/uws-package.ts). A client subscribes to the topic
 * named by `?group=`; each MQTT payload is published to its device's topic unchanged. uWS frames once per topic and batches each socket's frames of one
 * event-loop iteration into one write (cork): the fastest fan-out a Node process can host here.
 */
const args = processArgs<UwsAnchorArgs>();
const uws = loadUws<Uws>();
let members = 0;
const app = uws
  .App()
  .ws('/*', {
    compression: uws.DISABLED,
    maxPayloadLength: 64 * 1024,
    idleTimeout: 0,
    // uWS skips a subscriber whose backpressure exceeds this: the same role as the hub's high water.
    maxBackpressure: 1024 * 1024,
    upgrade: (
      res: Record<string, (...a: unknown[]) => unknown>,
      req: Record<string, (...a: unknown[]) => string>,
      context: unknown,
    ) => {
      res.upgrade!(
        { group: req.getQuery!('group') ?? '' },
        req.getHeader!('sec-websocket-key'),
        req.getHeader!('sec-websocket-protocol'),
        req.getHeader!('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws: { getUserData(): { group: string }; subscribe(topic: string): boolean }) => {
      ws.subscribe(ws.getUserData().group);
      members++;
    },
    close: () => {
      members--;
    },
  })
  .any('/*', (res) => res.writeStatus('404 Not Found').end());

const port = await new Promise<number>((resolve, reject) =>
  app.listen('127.0.0.1', 0, (socket) =>
    socket ? resolve(uws.us_socket_local_port(socket)) : reject(new Error('uWS could not listen')),
  ),
);
const feed = await startAnchorFeed(args.mqttUrl, `tenants/${BENCH.tenant}/devices/+/telemetry`, (topic, payload) => {
  app.publish(deviceOfTopic(topic), payload, false);
});

serveParent({ stats: () => ({ members }) }, { url: `http://127.0.0.1:${port}`, brokerUrl: feed.brokerUrl });
