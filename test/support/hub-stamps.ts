import type { ChildHub } from './child-hub.js';
import { eventually } from './app-harness.js';
import { startChildHub } from './child-hub.js';

/** One access key for every hub and the gateway of a test: the gateway verifies client tokens with it. */
export const ACCESS_KEY = 'gateway-test-access-key-0123456789abcdef';

export interface HubProcess extends ChildHub {
  /** Its embedded broker, where the test's devices publish. */
  brokerUrl: string;
}

/**
 * A hub as a real process in Development on ephemeral ports (HTTP and embedded broker), no
 * simulator, the shared access key, believing forwarded headers from loopback (where the proxies run).
 */
export async function startHubProcess(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HubProcess> {
  const hub = await startChildHub(
    [
      '--environment=Development',
      '--Http:Port=0',
      '--Ingestion:Mqtt:EmbeddedPort=0',
      '--Simulator:Devices=0',
      `--Hub:AccessKey=${ACCESS_KEY}`,
      '--Http:TrustedProxies=127.0.0.1',
      ...extraArgs,
    ],
    env,
    // A hub opens its embedded database at start: seconds on a loaded machine.
    30_000,
  );
  let broker: string | undefined;
  await eventually(
    () => (broker = /mqtt"?:\s*"(mqtt:\/\/[^"]+)"/.exec(hub.output())?.[1]) !== undefined,
    10_000,
    'the hub to log its broker',
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${hub.output()}`);
  });
  return { ...hub, brokerUrl: broker!.replace('localhost', '127.0.0.1') };
}
