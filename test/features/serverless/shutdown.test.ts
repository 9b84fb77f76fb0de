import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { userToken } from '../../support/app-harness.js';
import { negotiate, startServerlessApp } from './serverless-harness.js';

describe('shutdown with Web PubSub clients connected', () => {
  it('closes them with 1012 ("reconnect elsewhere") and stops promptly', async () => {
    const hub = await startServerlessApp();
    const { url } = (await (await negotiate(hub.url, await userToken('t1'))).json()) as { url: string };
    const ws = new WebSocket(url, 'json.reliable.webpubsub.azure.v1');
    const frames: { type: string; event?: string }[] = [];
    ws.on('message', (data: Buffer) =>
      frames.push(JSON.parse(data.toString('utf8')) as { type: string; event?: string }),
    );
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

    const started = Date.now();
    await hub.stop();
    expect(await closed).toBe(1012);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(frames.map((f) => f.event)).toEqual(['connected', 'disconnected']);
  });
});
