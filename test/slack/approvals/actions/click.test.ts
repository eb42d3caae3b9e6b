// A click's workspace, which a signing link is bound to: the body's team, else (Slack sends `team:
// null` for an org-wide install's click) the clicking person's own workspace; an empty one, either,
// is none. And how long a modal submission's write may take, after its reads.
import { describe, expect, it } from 'vitest';
import { readClick, submissionDeadlines } from '../../../../src/slack/approvals/actions/click.js';

const body = (team: unknown, user: Record<string, unknown>) => ({
  user: { id: 'UAPPROVERA', ...user },
  channel: { id: 'CAPPROVALS' },
  trigger_id: '1.2.3',
  team,
  actions: [{ value: 'AR-0123456789:0' }],
});

describe('a click’s workspace', () => {
  it('is the body’s team', () => {
    expect(readClick(body({ id: 'T1' }, { team_id: 'T1' }))).toMatchObject({
      ok: true,
      click: { team: 'T1' },
    });
  });

  it('is the person’s workspace when the body names no team', () => {
    expect(readClick(body(null, { team_id: 'T1' }))).toMatchObject({ ok: true, click: { team: 'T1' } });
  });

  it('is read without the person’s workspace when Slack sends it empty', () => {
    expect(readClick(body({ id: 'T1' }, { team_id: '' }))).toMatchObject({ ok: true, click: { team: 'T1' } });
    const read = readClick(body(null, { team_id: '' }));
    expect(read).toMatchObject({ ok: true, click: { user: 'UAPPROVERA', value: 'AR-0123456789:0' } });
    expect(read.ok && read.click.team).toBeUndefined();
  });

  it('is read as none, not as an unreadable click, when the body’s team is empty', () => {
    expect(readClick(body({ id: '' }, { team_id: 'T1' }))).toMatchObject({ ok: true, click: { team: 'T1' } });
    const read = readClick(body({ id: '' }, { team_id: '' }));
    expect(read).toMatchObject({ ok: true, click: { user: 'UAPPROVERA', value: 'AR-0123456789:0' } });
    expect(read.ok && read.click.team).toBeUndefined();
  });

  it('is none when neither says', () => {
    const read = readClick(body(null, {}));
    expect(read.ok && read.click.team).toBeUndefined();
  });
});

describe('a modal submission’s write deadlines', () => {
  it('are a click’s when its reads were quick', () => {
    const started = Date.now();
    const { writeBy, ackBy } = submissionDeadlines(started);
    expect(writeBy).toBeGreaterThanOrEqual(started + 1_500);
    expect(ackBy - writeBy).toBe(500);
  });

  it('leave its write what a slow read left, so the ack stays within 2.5 s of its start', () => {
    const started = Date.now() - 1_400;
    expect(submissionDeadlines(started)).toEqual({ writeBy: started + 2_000, ackBy: started + 2_500 });
  });
});
