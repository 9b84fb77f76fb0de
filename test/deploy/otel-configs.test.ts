import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const DIR = fileURLToPath(new URL('../../deploy/otel/', import.meta.url));
const load = (file: string) => ({
  text: readFileSync(`${DIR}${file}`, 'utf8'),
  config: parse(readFileSync(`${DIR}${file}`, 'utf8')) as any,
});

/** Every `auth.authenticator` names an extension the service starts. */
function authenticatorsStarted(config: any, blocks: any[]): void {
  for (const block of blocks) {
    expect(block.auth?.authenticator).toBeDefined();
    expect(config.extensions[block.auth.authenticator]).toBeDefined();
    expect(config.service.extensions).toContain(block.auth.authenticator);
  }
}

/**
 * The example collector configurations (deploy/otel/): telemetry leaves a hub's pod only over TLS
 * with a credential, and the gateways accept only agents that present one.
 */
describe('deploy/otel collector configurations', () => {
  const agent = load('agent.yaml');
  const gateway = load('gateway.yaml');

  it('never turn TLS verification off', () => {
    for (const { text } of [agent, gateway]) expect(text).not.toMatch(/insecure(_skip_verify)?:\s*true/);
  });

  it('the agent listens on loopback only and exports to the gateways over TLS with a token', () => {
    expect(agent.config.receivers.otlp.protocols.http.endpoint).toMatch(/^(localhost|127\.0\.0\.1):\d+$/);
    expect(agent.config.receivers.otlp.protocols.grpc).toBeUndefined();
    const exporters = [agent.config.exporters.loadbalancing.protocol.otlp, agent.config.exporters['otlp/gateway']];
    for (const e of exporters) expect(e.tls.ca_file).toBeDefined();
    authenticatorsStarted(agent.config, exporters);
  });

  it('the gateway accepts agents over TLS with their token only, and exports to the backend with a token', () => {
    const receivers = Object.values(gateway.config.receivers.otlp.protocols) as any[];
    expect(receivers.length).toBeGreaterThan(0);
    for (const r of receivers) expect(r.tls.cert_file && r.tls.key_file).toBeTruthy();
    authenticatorsStarted(gateway.config, receivers);
    authenticatorsStarted(gateway.config, [gateway.config.exporters.otlphttp]);
    // The agents' token is the one the gateway checks.
    expect(agent.config.extensions['bearertokenauth/gateway'].token).toBe(
      gateway.config.extensions['bearertokenauth/agents'].token,
    );
  });
});
