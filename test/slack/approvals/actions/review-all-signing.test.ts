// Review all's list asks, for each request, whether its approval must be signed. A passkey registration
// on a new install is judged by who holds passkeys and is an approver, which may read Slack: when Slack
// does not answer, that one request is listed as one to sign (approved from its own message), and the
// list still opens.
import { expect } from 'vitest';
import { mustSignOf } from '../../../../src/slack/approvals/actions/review-all.js';
import type { ApprovalSlackDeps } from '../../../../src/slack/types.js';
import { SoftwareAuthenticator } from '../../../support/authenticator.js';
import { fileRegistration, groupApproversTest } from '../../../support/passkey-approvers.js';
import { TEST_RP_ID, TEST_SIGNING } from '../../../support/passkey-registration.js';

const [ADE, CHIDI, DAYO] = ['U_ADE', 'U_CHIDI', 'U_DAYO'];
const test = groupApproversTest([ADE, CHIDI], [DAYO]);

test('takes a registration whose rule Slack cannot answer now as one to sign, and lists the rest', async ({
  fx,
  groupRead,
}) => {
  const dayos = new SoftwareAuthenticator({ user: DAYO, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
  await fx.engine.passkeys.signatures().book.add({ ...dayos.passkey(), addedAt: new Date().toISOString() });
  const chidis = await fileRegistration(fx.engine, CHIDI, "Chidi's laptop");
  const deps = { engine: fx.engine } as unknown as ApprovalSlackDeps;
  expect(await mustSignOf(deps, [chidis], ADE)).toEqual(new Set());
  groupRead.fails = true;
  expect(await mustSignOf(deps, [chidis], ADE)).toEqual(new Set([chidis.id]));
});
