import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from './app-harness.js';
import { freePort, privateRedisArgs, privateServer, requireCommand, type PrivateServer } from './private-server.js';

/**
 * A Redis Cluster of the test's own: three masters, each with one replica, on ephemeral ports
 * (the cluster bus on ports of its own too), in a temporary directory removed at stop.
 */
export interface PrivateRedisCluster {
  /** A seed node's URL, as `ConnectionStrings:redis` names it. */
  readonly url: string;
  /** Kills the master serving `key`'s slot and resolves once its replica took over. */
  failOver(key: string): Promise<void>;
  /** Moves the (empty) slot of `key` to another master, as resharding does, and resolves once every node agrees. */
  moveSlot(key: string): Promise<void>;
  /** Kills every node (by PID) and removes their files. */
  stop(): Promise<void>;
}

const NODES = 6;

/** Whether redis-server and redis-cli are there; else the caller skips (CI=true: throws). */
export function clusterCommandsPresent(): boolean {
  return (
    requireCommand('redis-server', 'a private Redis Cluster') && requireCommand('redis-cli', 'a private Redis Cluster')
  );
}

/**
 * Tried twice: between the kernel naming a free port and redis-server binding it, another test's
 * process (a cluster started in parallel) may take it.
 */
export async function privateRedisCluster(): Promise<PrivateRedisCluster> {
  try {
    return await startCluster();
  } catch {
    return await startCluster();
  }
}

async function startCluster(): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const nodes: PrivateServer[] = [];
  try {
    // Twelve distinct ports: a port the kernel handed out and took back may come again.
    const taken = new Set<number>();
    const distinct = async (next: () => Promise<number>): Promise<number> => {
      for (;;) {
        const port = await next();
        if (taken.has(port)) continue;
        taken.add(port);
        return port;
      }
    };
    for (let i = 0; i < NODES; i++) {
      const busPort = await distinct(freePort);
      let server: PrivateServer | undefined;
      await distinct(async () => {
        server = await privateServer('redis-server', (port) => [
          ...privateRedisArgs(port),
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          // An ephemeral port + 10000 (the default bus port) may not exist.
          '--cluster-port',
          String(busPort),
          '--cluster-node-timeout',
          '1000',
          // On a busy two-core machine a replica's link to its master often looks too old to
          // promote it; any replica may take over here.
          '--cluster-replica-validity-factor',
          '0',
        ]);
        return server.port;
      });
      nodes.push(server!);
    }
    await Promise.all(nodes.map((n) => n.start()));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await Promise.all(
      nodes.map((n) => waitUntil(() => clusterOk(n.port), 20_000, `node ${n.port} to join the cluster`)),
    );
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const byPort = new Map(nodes.map((n) => [n.port, n]));
  const alive = new Set(byPort.keys());
  return {
    url: `redis://127.0.0.1:${nodes[0]!.port}`,
    async failOver(key) {
      const seed = nodes.find((n) => alive.has(n.port))!;
      const slot = Number(await ask(seed.port, (r) => r.cluster('KEYSLOT', key)));
      const master = await ask(seed.port, async (r) => ownerOf(await r.cluster('SLOTS'), slot));
      alive.delete(master);
      await byPort.get(master)!.stop();
      await waitUntil(
        async () => {
          const survivor = nodes.find((n) => alive.has(n.port))!;
          const owner = await ask(survivor.port, async (r) => ownerOf(await r.cluster('SLOTS'), slot));
          return owner !== master && (await clusterOk(owner));
        },
        20_000,
        `a replica of ${master} to take over`,
      );
    },
    async moveSlot(key) {
      const seed = nodes.find((n) => alive.has(n.port))!;
      const slot = Number(await ask(seed.port, (r) => r.cluster('KEYSLOT', key)));
      const from = await ask(seed.port, async (r) => ownerOf(await r.cluster('SLOTS'), slot));
      const masters = await ask(seed.port, async (r) => (await r.cluster('SLOTS')).map((range) => range[2]![1]));
      const to = masters.find((port) => port !== from)!;
      const id = (port: number) => ask(port, (r) => r.cluster('MYID'));
      const [fromId, toId] = [await id(from), await id(to)];
      // The documented sequence for a slot without keys: importing, migrating, then the new owner.
      await ask(to, (r) => r.cluster('SETSLOT', slot, 'IMPORTING', fromId));
      await ask(from, (r) => r.cluster('SETSLOT', slot, 'MIGRATING', toId));
      await ask(to, (r) => r.cluster('SETSLOT', slot, 'NODE', toId));
      await ask(from, (r) => r.cluster('SETSLOT', slot, 'NODE', toId));
      await waitUntil(
        async () => {
          for (const port of alive) {
            if ((await ask(port, async (r) => ownerOf(await r.cluster('SLOTS'), slot))) !== to) return false;
          }
          return true;
        },
        10_000,
        `every node to see slot ${slot} on ${to}`,
      );
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownerOf(ranges: [number, number, ...[string, number, ...unknown[]][]][], slot: number): number {
  const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
  if (master === undefined) throw new Error(`slot ${slot} has no owner`);
  return master[1];
}

async function clusterOk(port: number): Promise<boolean> {
  try {
    return String(await ask(port, (r) => r.cluster('INFO'))).includes('cluster_state:ok');
  } catch {
    return false;
  }
}

async function ask<T>(port: number, query: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await query(redis);
  } finally {
    redis.disconnect();
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** Polls `check` until it holds; a check that throws (a node not up yet) counts as not yet. */
function waitUntil(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  return eventually(() => check().catch(() => false), ms, what);
}
