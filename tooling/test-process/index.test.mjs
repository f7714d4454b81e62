import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startProgram } from './index.mjs';

const index = new URL('./index.mjs', import.meta.url).href;

const dir = mkdtempSync(join(tmpdir(), 'test-process-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function program(name, source) {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

const server = program(
  'server',
  `console.error('warming up');
setTimeout(() => console.log('ready on 4321, env ' + JSON.stringify(Object.keys(process.env).sort())), 50);
setInterval(() => {}, 1000);`,
);

test('waits for a line, captures both streams apart and together, and stops with SIGTERM', async () => {
  process.env.TEST_PROCESS_LEAK = 'from the shell';
  const p = startProgram(server, { env: { KEPT: 'yes', DROPPED: undefined } });
  after(() => p.stop('SIGKILL'));
  const [, port] = await p.waitFor(/ready on (\d+)/);
  assert.equal(port, '4321');
  assert.deepEqual(await p.waitFor('warming'), ['warming']);
  assert.match(p.stdout(), /env \["KEPT","PATH"\]/);
  assert.equal(p.stderr(), 'warming up\n');
  assert.match(p.output(), /^warming up\nready on 4321/);
  assert.ok(p.rss() > 1024 * 1024);
  assert.deepEqual(await p.stop(), { code: null, signal: 'SIGTERM' });
  assert.deepEqual(await p.stop(), { code: null, signal: 'SIGTERM' });
});

test('a line never printed rejects when the process exits, with what it printed', async () => {
  const p = startProgram(program('fails', `console.log('half'); console.error('no config'); process.exit(3);`));
  await assert.rejects(p.waitFor('ready'), /exited \(3\) before printing ready:\n[\s\S]*no config/);
  assert.deepEqual(await p.exited, { code: 3, signal: null });
  assert.equal(p.stdout(), 'half\n');
});

test('reads the CPU time the process used, not the time it waited', async () => {
  const p = startProgram(
    program(
      'busy',
      `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
while (used() < 300); console.log('spun'); setTimeout(() => console.log('idle'), 400); setInterval(() => {}, 1000);`,
    ),
  );
  after(() => p.stop('SIGKILL'));
  await p.waitFor('spun');
  const spun = p.cpuMs();
  // The loop ran until the process had used 300 ms of CPU, however long that took.
  assert.ok(spun >= 290, `${spun} ms`);
  await p.waitFor('idle');
  // 400 ms asleep cost next to nothing.
  assert.ok(p.cpuMs() - spun < 200, `${p.cpuMs() - spun} ms while idle`);
});

test('a program ends with the process that started it, even one killed without stopping it', async () => {
  // A parent that starts the server and prints its pid, then is killed with SIGKILL (no handler runs).
  const parent = spawn(
    process.execPath,
    [
      program(
        'parent',
        `import { startProgram } from ${JSON.stringify(index)};
const p = startProgram(${JSON.stringify(server)});
await p.waitFor('ready');
console.log('child ' + p.pid);
setInterval(() => {}, 1000);`,
      ),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const pid = await new Promise((resolve, reject) => {
    parent.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /child (\d+)/.exec(out);
      if (found) resolve(Number(found[1]));
    });
    parent.once('exit', () => reject(new Error(`the parent exited first: ${out}`)));
  });
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  after(() => alive() && process.kill(pid, 'SIGKILL'));
  assert.ok(alive(), 'the server runs while its parent does');
  parent.kill('SIGKILL');
  const until = Date.now() + 10_000;
  while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.ok(!alive(), `the server (pid ${pid}) still runs after its parent was killed`);
});
