// A click's workspace, which a signing link is bound to: the body's team, else (Slack sends `team:
// null` for an org-wide install's click) the clicking person's own workspace; an empty one, either, is none.
import { describe, expect, it } from 'vitest';
import { readClick } from '../../../../src/slack/approvals/actions/click.js';

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
