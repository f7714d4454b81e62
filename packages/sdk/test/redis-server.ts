/*
 * A real Redis for the token store tests: TEST_REDIS_URL when CI gives one (.ci/run starts it), else
 * a redis-server of this test's own on a free loopback port, without persistence, stopped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';

export interface TestRedis {
  url: string;
  /** A prefix no other run shares, for keys on a Redis others use too. */
  prefix: string;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const answersPing = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });

export async function startTestRedis(): Promise<TestRedis> {
  const prefix = `sdk-test:${process.pid}:${Date.now()}:`;
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, prefix, close: async () => undefined };
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const spawned = new Promise<never>((_resolve, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not be started (is it installed?): ${error.message}`)));
  });
  for (let attempt = 0; !(await Promise.race([answersPing(port), spawned])); attempt += 1) {
    if (attempt > 100) throw new Error('redis-server did not answer PING');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    prefix,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
