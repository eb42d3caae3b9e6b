// The approvals engine as the passkey tests use it: approvers named in the settings and members of a
// Slack user group whose list a test changes (someone leaves the treasury team), signing on for every
// approval, and a person's browser filing a passkey registration on the engine.
import { ApprovalPolicy, parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { engineTest } from './engine.js';
import { register, TEST_SIGNING } from './passkey-registration.js';

/**
 * `engineTest` whose approvers are `approvers` and the members of `group` (a fresh list per test,
 * read from Slack on every check: remove one and they are no approver from then on), every approval
 * signed (`CNGN_SIGNED_APPROVALS=all`). Set `groupRead.fails` and every read of the group fails.
 */
export function groupApproversTest(approvers: string[], members: string[], tiers = '0:1') {
  return engineTest
    .extend('group', () => [...members])
    .extend('groupRead', () => ({ fails: false }))
    .extend('engineOptions', ({ group, groupRead }) => ({
      engine: {
        policy: new ApprovalPolicy({
          approvers,
          approverGroup: 'S_TREASURY',
          groupMembers: async () => {
            if (groupRead.fails) throw new Error('Slack did not answer');
            return [...group];
          },
          groupCacheMs: 0,
          tiers: parseTiers(tiers),
        }),
        signing: { ...TEST_SIGNING, rule: parseSigningRule('all') },
      },
    }));
}

/** `user`'s browser registers a passkey named `name`: the filed request "Register a passkey for @user". */
export async function fileRegistration(engine: ApprovalEngine, user: string, name: string) {
  const options = await engine.passkeys.registrationChallenge(user);
  const { response } = register({ challenge: options.challenge });
  const filed = await engine.passkeys.filePasskey(user, {
    response,
    expectedChallenge: options.challenge,
    name,
  });
  if (!filed.ok) throw new Error(filed.problem);
  return filed.request;
}
