// Who belongs to the bot's workspace, from a request's own fields and from Slack's user object: another
// team, user team or organisation is never taken as home, nor a request naming none; on Enterprise
// Grid a member of several workspaces of the organisation belongs; the refusal names the workspace as
// text, never as markup.
import { describe, expect, it } from 'vitest';
import { fromHome } from '../../../src/slack/gate/home.js';
import { refusalFieldText, refusalMessage } from '../../../src/slack/gate/refusals.js';
import { memberOf } from '../../../src/slack/runtime/people.js';

const HOME = { teamId: 'T1', team: 'Treasury' };
const GRID = { teamId: 'T1', team: 'Treasury', enterpriseId: 'E1' };

describe('a request from the home workspace', () => {
  it('names the home team everywhere it names one, and no organisation outside Grid', () => {
    expect(fromHome({ team: { id: 'T1' }, user: { id: 'U1', team_id: 'T1' }, enterprise: null }, HOME)).toBe(
      true,
    );
    expect(fromHome({ team_id: 'T1', enterprise_id: '' }, HOME)).toBe(true);
    expect(fromHome({ type: 'event_callback', team_id: 'T1', event: { user_team: 'T1' } }, HOME)).toBe(true);
  });

  it('is not one that names another team, user team, event team or organisation, or names none', () => {
    for (const body of [
      { team: { id: 'T0EVIL' }, user: { team_id: 'T1' } },
      { team: { id: 'T1' }, user: { team_id: 'T0EVIL' } },
      { team: { id: 'T1' }, enterprise: { id: 'E0EVIL' } },
      { team_id: 'T1', enterprise_id: 'E0EVIL' },
      { type: 'event_callback', team_id: 'T1', event: { source_team: 'T0EVIL' } },
      { team_id: '' },
      { team_id: 'valueOf' },
      { team: 'T1' },
      { user: { id: 'U1' } },
      null,
      'T1',
    ]) {
      expect(fromHome(body, HOME), JSON.stringify(body)).toBe(false);
    }
  });

  it('on Grid names the home organisation, and no other', () => {
    expect(fromHome({ team: { id: 'T1' }, enterprise: { id: 'E1' } }, GRID)).toBe(true);
    expect(fromHome({ team: { id: 'T1' }, enterprise: { id: 'E0EVIL' } }, GRID)).toBe(false);
    expect(fromHome({ team: { id: 'T1' }, enterprise: null }, GRID)).toBe(false);
  });
});

describe('a member of the home workspace, as users.info describes them', () => {
  it('has the home team and is no stranger', () => {
    expect(memberOf({ team_id: 'T1' }, HOME)).toBe(true);
    expect(memberOf({ team_id: 'T0EVIL' }, HOME)).toBe(false);
    expect(memberOf({ team_id: 'T1', is_stranger: true }, HOME)).toBe(false);
    expect(memberOf({}, HOME)).toBe(false);
    expect(memberOf({ team_id: 'T1', enterprise_user: { enterprise_id: 'E0EVIL' } }, HOME)).toBe(false);
  });

  it('on Grid belongs to the organisation, with the home workspace theirs or among theirs', () => {
    const of = (team: string, enterprise: string, teams: string[]) => ({
      team_id: team,
      enterprise_user: { enterprise_id: enterprise, teams },
    });
    expect(memberOf(of('T1', 'E1', ['T1']), GRID)).toBe(true);
    expect(memberOf(of('T2', 'E1', ['T2', 'T1']), GRID)).toBe(true);
    expect(memberOf(of('T2', 'E1', ['T2']), GRID)).toBe(false);
    expect(memberOf(of('T1', 'E2', ['T1']), GRID)).toBe(false);
    expect(memberOf({ team_id: 'T1' }, GRID)).toBe(false);
  });
});

describe('the refusal of someone of another workspace', () => {
  it('names the workspace as text in a message, and as typed in a form field', () => {
    const refusal = { why: 'external' as const, workspace: '<!channel> *Acme*' };
    expect(refusalMessage('button', refusal).text).toBe(
      'Only members of &lt;!channel&gt; ＊Acme＊ can use cngn-desk. Nothing was done.',
    );
    expect(refusalFieldText(refusal)).toBe(
      'Not allowed: Only members of <!channel> *Acme* can use cngn-desk. Nothing was filed.',
    );
  });
});
