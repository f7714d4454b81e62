import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planClaims, receivingHost, type ClaimPlanInput, type DueQueue } from './plan-claims';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 22, 4, 0, seconds));

function queue(subscriptionId: number, appId: number, host: string | null, due: number, oldestSecond = 0, inFlight = 0): DueQueue {
  return { subscriptionId: BigInt(subscriptionId), appId: BigInt(appId), host, due, oldestDue: at(oldestSecond), inFlight };
}

function plan(queues: DueQueue[], over: Partial<ClaimPlanInput> = {}): Record<string, number> {
  const planned = planClaims({
    queues,
    inFlightByHost: new Map(),
    inFlightByApp: new Map(),
    caps: { perHost: 4, perApp: 16 },
    budget: 64,
    ...over,
  });
  return Object.fromEntries(planned.map((p) => [p.subscriptionId.toString(), p.count]));
}

const sum = (counts: Record<string, number>, ids: number[]) => ids.reduce((n, id) => n + (counts[String(id)] ?? 0), 0);

describe(receivingHost.name, () => {
  it('is the host name, lower case, whatever the port (decisions §11.7)', () => {
    expect(receivingHost('https://Hooks.Example.com:8443/a')).toBe('hooks.example.com');
    expect(receivingHost('https://hooks.example.com/b')).toBe('hooks.example.com');
    expect(receivingHost('http://127.0.0.2:4001/')).toBe('127.0.0.2');
    expect(receivingHost('https://[2001:db8::1]:9000/x')).toBe('2001:db8::1');
    expect(receivingHost('not a url')).toBe('not a url');
  });
});

describe(planClaims.name, () => {
  it('gives an app at most perApp, however many subscriptions it has, and another app its due delivery beside it', () => {
    // 50 subscriptions on 50 hosts, older than the other app's one delivery.
    const greedy = Array.from({ length: 50 }, (_, i) => queue(i + 1, 1, `h${i}.example.com`, 4, 0));
    const counts = plan([...greedy, queue(100, 2, 'polite.example.com', 1, 30)]);
    expect(
      sum(
        counts,
        greedy.map((_, i) => i + 1),
      ),
    ).toBe(16);
    expect(counts['100']).toBe(1);
  });

  it('counts one host across ports and subscriptions, and across apps', () => {
    const counts = plan([queue(1, 1, 'same.example.com', 10), queue(2, 1, 'same.example.com', 10), queue(3, 2, 'same.example.com', 10)]);
    expect(sum(counts, [1, 2, 3])).toBe(4);
    expect(counts['3']).toBeGreaterThanOrEqual(1);
  });

  it('counts what other senders have in flight', () => {
    const counts = plan([queue(1, 1, 'a.example.com', 10), queue(2, 2, 'b.example.com', 10)], {
      inFlightByHost: new Map([['a.example.com', 3]]),
      inFlightByApp: new Map([[2n, 15]]),
    });
    expect(counts).toEqual({ '1': 1, '2': 1 });
    expect(plan([queue(1, 1, 'a.example.com', 10)], { inFlightByHost: new Map([['a.example.com', 4]]) })).toEqual({});
  });

  it('hands out a scarce budget one slot per app in turn, the longest-waiting app first', () => {
    const queues = [queue(1, 1, 'a.example.com', 5, 20), queue(2, 2, 'b.example.com', 5, 10), queue(3, 3, 'c.example.com', 5, 30)];
    expect(plan(queues, { budget: 2 })).toEqual({ '2': 1, '1': 1 });
    expect(plan(queues, { budget: 5 })).toEqual({ '2': 2, '1': 2, '3': 1 });
  });

  it("takes turns between one app's subscriptions", () => {
    const counts = plan([queue(1, 1, 'a.example.com', 60, 0), queue(2, 1, 'b.example.com', 6, 5)], { caps: { perHost: 4, perApp: 4 } });
    expect(counts).toEqual({ '1': 2, '2': 2 });
  });

  it('gives a lone free slot to the subscription, then the app, with the fewest attempts in flight', () => {
    const host = new Map([['a.example.com', 1]]);
    // Same age: the one with nothing in flight goes first, whatever its id.
    expect(
      plan([queue(1, 1, 'a.example.com', 60, 0, 1), queue(2, 1, 'a.example.com', 6, 0, 0)], {
        caps: { perHost: 2, perApp: 16 },
        inFlightByHost: host,
      }),
    ).toEqual({ '2': 1 });
    const apps = new Map([[1n, 3]]);
    expect(
      plan([queue(1, 1, 'a.example.com', 60, 0, 3), queue(2, 2, 'b.example.com', 6, 10, 0)], { budget: 1, inFlightByApp: apps }),
    ).toEqual({ '2': 1 });
  });

  it("takes a subscription's whole backlog up to its host's cap", () => {
    expect(plan([queue(1, 1, 'a.example.com', 3000)])).toEqual({ '1': 4 });
  });

  it('takes deliveries that will not be sent outside the caps, up to the budget', () => {
    const counts = plan([queue(1, 1, null, 100), queue(2, 1, 'a.example.com', 10)], { budget: 20, inFlightByApp: new Map([[1n, 16]]) });
    expect(counts).toEqual({ '1': 20 });
  });

  describe('held deliveries (a slot passed on without a new claim)', () => {
    const holding = (queues: DueQueue[], over: Partial<ClaimPlanInput> = {}) =>
      Object.fromEntries(
        planClaims({
          queues,
          inFlightByHost: new Map(),
          inFlightByApp: new Map(),
          caps: { perHost: 4, perApp: 16 },
          budget: 64,
          holdPerSlot: 2,
          holdBudget: 64,
          ...over,
        }).map((p) => [p.subscriptionId.toString(), [p.count, p.hold]]),
      );

    it("holds two per slot of a subscription's backlog, counting what it holds already", () => {
      expect(holding([queue(1, 1, 'a.example.com', 3000)])).toEqual({ '1': [4, 8] });
      const own = new Map([[1n, { running: 4, held: 5 }]]);
      expect(holding([queue(1, 1, 'a.example.com', 3000)], { own, inFlightByHost: new Map([['a.example.com', 4]]) })).toEqual({
        '1': [0, 3],
      });
    });

    it('holds as many per slot as the sender asks for a subscription, when it names a number', () => {
      const own = new Map([[1n, { running: 4, held: 5, holdPerSlot: 10 }]]);
      const busy = { own, inFlightByHost: new Map([['a.example.com', 4]]) };
      expect(holding([queue(1, 1, 'a.example.com', 3000)], busy)).toEqual({ '1': [0, 35] });
      // still no more than is due and than the budget
      expect(holding([queue(1, 1, 'a.example.com', 20)], busy)).toEqual({ '1': [0, 20] });
      expect(holding([queue(1, 1, 'a.example.com', 3000)], { ...busy, holdBudget: 7 })).toEqual({ '1': [0, 7] });
      // holding more than that already takes nothing
      expect(
        holding([queue(1, 1, 'a.example.com', 3000)], { ...busy, own: new Map([[1n, { running: 4, held: 5, holdPerSlot: 1 }]]) }),
      ).toEqual({});
    });

    it('holds while the subscriptions waiting on one host or app have even shares', () => {
      expect(holding([queue(1, 1, 'a.example.com', 3000), queue(2, 2, 'a.example.com', 50)])).toEqual({ '1': [2, 4], '2': [2, 4] });
      expect(holding([queue(1, 1, 'a.example.com', 3000), queue(2, 1, 'b.example.com', 50)], { caps: { perHost: 4, perApp: 4 } })).toEqual({
        '1': [2, 4],
        '2': [2, 4],
      });
      // A neighbour with nothing left over does not count.
      expect(holding([queue(1, 1, 'a.example.com', 3000), queue(2, 2, 'b.example.com', 1)])).toEqual({ '1': [4, 8], '2': [1, 0] });
    });

    it('holds nothing for a subscription ahead of a neighbour still waiting, or when the budget ran short', () => {
      // Five subscriptions on one host of 4 slots: the fifth waits, so no slot is kept by holding.
      const five = [1, 2, 3, 4, 5].map((n) => queue(n, n, 'a.example.com', 100));
      expect(holding(five)).toEqual({ '1': [1, 0], '2': [1, 0], '3': [1, 0], '4': [1, 0] });
      // Three on 4 slots: the one with two holds nothing, the ones with one may.
      expect(holding([1, 2, 3].map((n) => queue(n, n, 'a.example.com', 100)))).toEqual({ '1': [2, 0], '2': [1, 2], '3': [1, 2] });
      expect(holding([queue(1, 1, 'a.example.com', 3000), queue(2, 2, 'b.example.com', 5)], { budget: 4 })).toEqual({
        '1': [2, 0],
        '2': [2, 0],
      });
    });

    it('holds no more than is due and than its budget', () => {
      expect(holding([queue(1, 1, 'a.example.com', 6)])).toEqual({ '1': [4, 2] });
      expect(holding([queue(1, 1, 'a.example.com', 3000)], { holdBudget: 3 })).toEqual({ '1': [4, 3] });
      expect(holding([queue(1, 1, 'a.example.com', 3000)], { holdPerSlot: 0 })).toEqual({ '1': [4, 0] });
    });
  });

  it('never passes a cap or the budget, and leaves no slot unused that a queue could take', () => {
    const hosts = ['a', 'b', 'c', 'd'];
    const arbitraryQueue = fc.record({
      app: fc.integer({ min: 1, max: 4 }),
      host: fc.constantFrom(...hosts),
      due: fc.integer({ min: 0, max: 30 }),
      age: fc.integer({ min: 0, max: 100 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbitraryQueue, { maxLength: 20 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.dictionary(fc.constantFrom(...hosts), fc.integer({ min: 0, max: 6 })),
        (raw, budget, perHost, perApp, busy) => {
          const queues = raw.map((q, i) => queue(i + 1, q.app, q.host, q.due, q.age));
          const inFlightByHost = new Map(Object.entries(busy));
          const planned = planClaims({ queues, inFlightByHost, inFlightByApp: new Map(), caps: { perHost, perApp }, budget });
          const total = planned.reduce((n, p) => n + p.count, 0);
          if (total > budget) return false;
          const byHost = new Map<string, number>();
          const byApp = new Map<bigint, number>();
          for (const p of planned) {
            const q = queues.find((x) => x.subscriptionId === p.subscriptionId)!;
            if (p.count > q.due) return false;
            byHost.set(q.host!, (byHost.get(q.host!) ?? 0) + p.count);
            byApp.set(q.appId, (byApp.get(q.appId) ?? 0) + p.count);
          }
          for (const [host, n] of byHost)
            if (n + (inFlightByHost.get(host) ?? 0) > Math.max(perHost, inFlightByHost.get(host) ?? 0)) return false;
          for (const n of byApp.values()) if (n > perApp) return false;
          if (total === budget) return true;
          // Budget left: every queue with work left is blocked by its host's or its app's cap.
          return queues.every((q) => {
            const taken = planned.find((p) => p.subscriptionId === q.subscriptionId)?.count ?? 0;
            if (taken >= q.due) return true;
            const hostFull = (byHost.get(q.host!) ?? 0) + (inFlightByHost.get(q.host!) ?? 0) >= perHost;
            return hostFull || (byApp.get(q.appId) ?? 0) >= perApp;
          });
        },
      ),
    );
  });
});
