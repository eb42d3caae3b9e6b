// What a channel posts next under load, decided from the waiting events alone: no Slack, no store.
import { describe, expect, it } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { chooseStep, pickCandidates, planDigest, sortClaimed } from '../../src/webhooks/digest-plan.js';
import type { DigestRecord, DigestRendering, OutboxEntry } from '../../src/webhooks/types.js';

let seq = 0;

function entry(
  id: string,
  extra: Partial<OutboxEntry> & { kind?: string; status?: string } = {},
): OutboxEntry {
  const { kind = 'deposit.completed', status = 'completed', ...rest } = extra;
  seq += 1;
  return {
    id,
    seq,
    origin: 'webhook',
    environment: 'sandbox',
    event: webhookEventSchema.parse({
      event: kind,
      data: { transactionId: `tx-${id}`, status, amount: '10' },
      timestamp: 'x',
    }),
    enqueuedAt: '2025-01-01T00:00:00.000Z',
    ...rest,
  };
}

function routine(count: number, prefix = 'r'): OutboxEntry[] {
  return Array.from({ length: count }, (_, i) => entry(`${prefix}${i + 1}`));
}

const recorded: DigestRecord = {
  id: 'd1',
  channel: 'C1',
  part: 1,
  more: false,
  entryIds: ['x1', 'x2'],
  createdAt: '2025-01-01T00:00:00.000Z',
};

/** One block per event: Slack's 50-block limit decides how many one message lists. */
const blockPerEvent: DigestRendering = {
  message: (input) => ({
    text: `${input.alerts.length} events`,
    blocks: input.alerts.map((a) => ({ type: 'section', text: { type: 'mrkdwn', text: a.event.event } })),
  }),
  placeholder: () => ({ text: 'listing…', blocks: [] }),
};

const ids = (entries: readonly OutboxEntry[]) => entries.map((e) => e.id);
const settings = { digests: true, digestAbove: 5 };

describe('the next step for a channel', () => {
  it('has nothing to do when nothing waits', () => {
    expect(chooseStep({ queue: [], digests: [] }, settings)).toBeUndefined();
  });

  it('posts a failure first and alone, after the earlier events of its own reference', () => {
    const queue = [
      ...routine(8),
      entry('w1', { kind: 'withdrawal.completed', status: 'processing' }),
      entry('w2', { kind: 'withdrawal.completed', status: 'failed', after: 'w1' }),
    ];
    expect(chooseStep({ queue, digests: [recorded] }, settings)).toEqual({ kind: 'single', entry: queue[8] });
    const unknownKind = [...routine(8), entry('u1', { kind: 'account.frozen' })];
    expect(chooseStep({ queue: unknownKind, digests: [] }, settings)).toEqual({
      kind: 'single',
      entry: unknownKind[8],
    });
  });

  it('finishes a digest already recorded before anything routine', () => {
    expect(chooseStep({ queue: routine(8), digests: [recorded] }, settings)).toEqual({
      kind: 'digest',
      record: recorded,
    });
  });

  it('posts routine events one by one while few wait, and groups them beyond that', () => {
    const few = routine(5);
    expect(chooseStep({ queue: few, digests: [] }, settings)).toEqual({
      kind: 'single',
      entry: few[0],
      endsRun: true,
    });
    expect(chooseStep({ queue: routine(6), digests: [] }, settings)).toEqual({ kind: 'group' });
  });

  it('never groups without a digest builder, nor when a thread reply is the oldest waiting', () => {
    const many = routine(20);
    expect(chooseStep({ queue: many, digests: [] }, { ...settings, digests: false })).toMatchObject({
      kind: 'single',
      entry: many[0],
    });
    const reply = [entry('t1', { threadOf: 'p1' }), ...routine(20)];
    expect(chooseStep({ queue: reply, digests: [] }, settings)).toMatchObject({
      kind: 'single',
      entry: reply[0],
    });
  });
});

describe('the events a new digest may take', () => {
  it('takes the oldest routine events up to the maximum, never a failure or a thread reply', () => {
    const queue = [
      entry('a'),
      entry('f', { status: 'failed' }),
      entry('t', { threadOf: 'p' }),
      entry('u', { unreadable: ['amount'] }),
      ...routine(10),
    ];
    const picked = pickCandidates(queue, 4, new Map());
    expect(ids(picked.entries)).toEqual(['a', 'r1', 'r2', 'r3']);
    expect(picked.waiting).toEqual([]);
    expect(picked.unknown).toEqual([]);
  });

  it('keeps an event behind its predecessor waiting here, unless that one is taken too', () => {
    const queue = [
      entry('f', { status: 'failed' }),
      entry('after-f', { after: 'f' }),
      entry('a'),
      entry('after-a', { after: 'a' }),
    ];
    expect(ids(pickCandidates(queue, 10, new Map()).entries)).toEqual(['a', 'after-a']);
  });

  it('asks about predecessors posted elsewhere, then leaves out those that must wait for them', () => {
    const queue = [entry('a', { after: 'elsewhere' }), entry('b', { after: 'done' }), ...routine(3)];
    const first = pickCandidates(queue, 3, new Map());
    expect(first.unknown).toEqual(['elsewhere', 'done']);
    expect(ids(first.entries)).toEqual(['a', 'b', 'r1']);

    const known = new Map([
      ['elsewhere', true],
      ['done', false],
    ]);
    const second = pickCandidates(queue, 3, known);
    expect(second.unknown).toEqual([]);
    expect(ids(second.waiting)).toEqual(['a']);
    expect(ids(second.entries)).toEqual(['b', 'r1', 'r2']);
  });
});

describe('the claimed events', () => {
  it('leaves out what another replica holds or what was finished meanwhile, and what waits behind it', () => {
    const [a, b, c, d, e] = [entry('a'), entry('b'), entry('c'), entry('d', { after: 'c' }), entry('e')];
    const candidates = [a!, b!, c!, d!, e!];
    const delivered = { ...c!, deliveredAt: '2025-01-01T00:00:01.000Z' };
    const freshE = { ...e!, enqueuedAt: 'read again' };
    const sorted = sortClaimed(
      candidates,
      [true, false, true, true, true],
      [a, undefined, delivered, d, freshE],
    );
    expect(sorted.verdicts).toEqual(['chosen', 'taken', 'finished', 'behind', 'chosen']);
    expect(sorted.chosen).toEqual([a, freshE]);
  });
});

describe('the digest planned', () => {
  const base = { channel: 'C1', changed: false, part: 2, render: blockPerEvent, id: 'new', now: new Date(0) };

  it('lists as many events as one Slack message carries and lets the others go', () => {
    const queue = routine(70);
    const chosen = queue.slice(0, 60);
    const plan = planDigest({ ...base, chosen, queue });
    expect(plan.kind).toBe('digest');
    if (plan.kind !== 'digest') return;
    expect(plan.record).toEqual({
      id: 'new',
      channel: 'C1',
      part: 2,
      more: true,
      entryIds: ids(chosen.slice(0, 50)),
      createdAt: '1970-01-01T00:00:00.000Z',
    });
    expect(ids(plan.release)).toEqual(ids(chosen.slice(50)));
  });

  it('says when nothing more waits after this part', () => {
    const queue = routine(7);
    const plan = planDigest({ ...base, chosen: queue, queue });
    expect(plan).toMatchObject({
      kind: 'digest',
      record: { more: false, entryIds: ids(queue) },
      release: [],
    });
  });

  it('posts one event alone when fewer than two can go together', () => {
    const queue = routine(8);
    expect(planDigest({ ...base, chosen: [queue[3]!], queue })).toEqual({
      kind: 'single',
      entry: queue[3],
      release: [queue[3]],
    });
    expect(planDigest({ ...base, chosen: [], queue })).toEqual({
      kind: 'single',
      entry: queue[0],
      release: [],
    });
    expect(planDigest({ ...base, chosen: [], queue, changed: true })).toEqual({ kind: 'again', release: [] });
  });

  it('posts the oldest alone when even two events do not fit one message', () => {
    const huge: DigestRendering = {
      ...blockPerEvent,
      message: (input) => ({ text: 'x'.repeat(input.alerts.length > 1 ? 4_000 : 10), blocks: [] }),
    };
    const queue = routine(8);
    const plan = planDigest({ ...base, render: huge, chosen: queue.slice(0, 3), queue });
    expect(plan).toEqual({ kind: 'single', entry: queue[0], release: [queue[1], queue[2], queue[0]] });
  });
});
