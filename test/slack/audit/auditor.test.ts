// An auditor who is not an approver runs every audit command (the access gate lets the auditor role
// by) and approves nothing.
import { expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { type ApprovalApp, approve, fileWithdrawal } from '../approvals/support.js';

const AUDITOR = 'U0EFE';

async function cngn(app: ApprovalApp, text: string): Promise<string> {
  return JSON.stringify((await commandAnswer(app, text, AUDITOR)).body);
}

botTest(
  'an auditor lists, verifies, archives and exports the audit log, and cannot approve',
  async ({ startApp }) => {
    const app = await startApp({ config: { roles: { auditors: [AUDITOR], approversByKind: {} } } });
    const id = await fileWithdrawal(app, '1500');
    expect(await cngn(app, 'audit')).toContain('Audit log');
    expect(await cngn(app, 'audit verify')).toContain('Audit chain intact');
    const archived = await cngn(app, 'audit archive');
    expect(archived).not.toContain('Only approvers');
    expect(archived).not.toContain('needs the');
    const exported = await cngn(app, 'audit export');
    expect(exported).not.toContain('Only approvers');
    expect(exported).not.toContain('needs the');
    const clicked = await approve(app, id, AUDITOR);
    expect(JSON.stringify(clicked)).toContain('needs the');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  },
);
