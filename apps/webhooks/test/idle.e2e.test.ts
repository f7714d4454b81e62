import { describe, expect, it } from 'vitest';
import { cpuTicks, fileDatabase, sleep, spawnSender } from './helpers';

// Issue 17, "Events in milliseconds": woken on commit, an idle sender costs no measurable CPU. This
// file runs alone, after the others (vitest.config.mjs): the CPU a process spends on the same idle
// work grows when other test files load both cores at once.

const database = fileDatabase();

describe('an idle sender', () => {
  it('an idle sender process costs no measurable CPU', async () => {
    // Default settings (its safety-net poll included).
    const p = spawnSender({ DATABASE_URL: database.url, PLATFORM_SENDER_POLL_MS: null });
    // Past the start: loading, connecting, the first claims, and V8's memory reducer, which collects
    // the start-up garbage about 8 s in (some 60-80 ms of CPU whatever the sender then does).
    await sleep(12_000);
    expect(p.child.exitCode, p.output()).toBeNull();
    const before = cpuTicks(p.child.pid!);
    await sleep(20_000);
    const used = cpuTicks(p.child.pid!) - before;
    console.log(`idle sender: ${used} clock tick(s) of CPU in 20 s`);
    p.child.kill('SIGTERM');
    expect((await p.exited).code, p.output()).toBe(0);
    // Idle, it reads one index a second. 10 ticks are 100 ms in 20 s, 0.5% of a core: the margin is
    // for a late garbage collection on a busy machine. (Claiming every 100 ms, as before, cost 29.)
    expect(used).toBeLessThanOrEqual(10);
  });
});
