// The standalone verifier with approvers given as a Slack user group. The bot records a group's
// members as it first reads them after a start, then the changes it sees, each without waiting, from a
// cache up to two minutes old: a recorded join places someone in the group, and nothing the archive
// holds places them out of it (verify-approver-members.test.ts: a listing). So an approval by someone
// the archive shows joining counts, and one by
// anyone else (never seen to join, or seen to leave and maybe back since) is named as one the archive
// cannot settle, in plain words, never a problem. A first-passkeys click likewise: a holder only a
// group could make an approver leaves it unsettled. The archives are written by the real engine, whose
// own pool (the fixture's list) lets the approvals through: only the recorded policy says otherwise.
import { describe, expect } from 'vitest';
import {
  approverArchiveTest,
  delegatedToOutsider,
  flagged,
  recordedPolicy,
  registerClicked,
  type SignedAndArchived,
  verify,
  type WithdrawalArchive,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, type EngineFixture, OUTSIDER, REQUESTER } from '../support/engine.js';

const GROUP = 'S0TREASURY';

const test = approverArchiveTest(recordedPolicy({ approvers: { users: [], group: GROUP } }));

/** What the group's recorded members do before anyone approves: who the bot saw join, then leave. */
interface Membership {
  joined: string[];
  left: string[];
}

/**
 * Started, the group's membership changes recorded (a second apart); A's passkey, approved by B with a
 * click (no one holds one yet); a withdrawal A signs, sent; archived. The folder and the withdrawal.
 */
async function groupArchive(
  fx: EngineFixture,
  signedAndArchived: SignedAndArchived,
  membership: Membership,
): Promise<WithdrawalArchive> {
  await startWith(fx, membership);
  const deviceA = await registerClicked(fx.engine, APPROVER_A, APPROVER_B);
  return signedAndArchived(APPROVER_A, deviceA);
}

/** Started, the group's membership changes recorded, a second apart. */
async function startWith({ engine, clock }: EngineFixture, membership: Membership): Promise<void> {
  await engine.start();
  if (membership.joined.length) await engine.recordMembershipChange(GROUP, membership.joined, []);
  clock.advance(1_000);
  if (membership.left.length) await engine.recordMembershipChange(GROUP, [], membership.left);
  clock.advance(1_000);
}

/**
 * Started with `membership`; B's passkey (clicked by A); A delegates to the outsider (B signs), whose
 * passkey B signs; then A's passkey clicked by the requester: the engine, counting approvers only (not
 * the outsider, a delegate), saw one holding a passkey before it. Archived: the folder.
 */
async function firstPasskeysArchive(
  fx: EngineFixture,
  archived: () => Promise<string>,
  membership: Membership,
) {
  const { engine } = fx;
  await startWith(fx, membership);
  const deviceB = await registerClicked(engine, APPROVER_B, APPROVER_A);
  await delegatedToOutsider(engine, deviceB);
  await registerClicked(engine, APPROVER_A, REQUESTER);
  return archived();
}

/**
 * Started with `membership`; B's passkey (clicked by the requester); A delegates to the outsider (B
 * signs), whose passkey B signs; a withdrawal the outsider signs in A's place, sent. Archived: the
 * folder and the withdrawal.
 */
async function delegateArchive(
  fx: EngineFixture,
  signedAndArchived: SignedAndArchived,
  membership: Membership,
): Promise<WithdrawalArchive> {
  const { engine } = fx;
  await startWith(fx, membership);
  const deviceB = await registerClicked(engine, APPROVER_B, REQUESTER);
  const device = await delegatedToOutsider(engine, deviceB);
  const archive = await signedAndArchived(OUTSIDER, device);
  expect(await engine.get(archive.withdrawal)).toMatchObject({
    state: 'sent',
    approvals: [{ user: OUTSIDER, onBehalfOf: APPROVER_A }],
  });
  return archive;
}

/** A CANNOT TELL line about request `request` (of `kind`; any when not given), saying `why`. */
const cannotTell = (why: string, kind = '\\S+', request = '\\S+') =>
  expect.stringMatching(
    new RegExp(`^CANNOT TELL sandbox/\\S+: request ${request} \\(${kind}, sent at seq \\d+\\): ${why}$`),
  );
const noJoin = (who: string, person = who) =>
  `cannot tell whether ${who} was an approver then: the archive records no joining of ${GROUP} by ${person} still standing when they approved \\(none, or a leaving since\\), and the bot records a group's members only as it reads them`;
const notChecked = (n: number) =>
  `NOT CHECKED: ${n} approval${n === 1 ? '' : 's'} (CANNOT TELL above): the archive does not tell whether the people named were approvers then.`;
const passedBut = (n: number) =>
  `No problems: every signature, hash and link checks out; ${n} approval${n === 1 ? '' : 's'} not checked (CANNOT TELL above).`;
/** Why a first-passkeys click by the requester is unsettled: whether these holders were approvers. */
const clickUnsettled = (holders: string) =>
  `cannot tell whether ${REQUESTER}'s unsigned approval counts: it does only if fewer than two approvers held passkeys then, and the archive does not tell whether ${holders}, who did, were approvers \\(members of the approvers' group\\)`;

describe('the verifier with approvers given as a Slack user group', () => {
  test('says it cannot tell, never a problem, for an approver the archive shows leaving the group (back since, unrecorded)', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    // A left and was added back, the bot seeing neither (its first read after a start would list A).
    const membership = { joined: [APPROVER_A, APPROVER_B], left: [APPROVER_A] };
    const { folder, withdrawal } = await groupArchive(fx, signedAndArchived, membership);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([cannotTell(noJoin(APPROVER_A), 'withdraw', withdrawal), notChecked(1)]);
    expect(lines.at(-1)).toBe(passedBut(1));
    expect(status).toBe(0);
  });

  test('passes approvals by people the archive shows joining the group before approving', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B], left: [] };
    const { folder } = await groupArchive(fx, signedAndArchived, membership);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([]);
    expect(lines.at(-1)).toBe('No problems: every signature, hash and link checks out.');
    expect(status).toBe(0);
  });

  test('says it cannot tell for approvers the archive never shows joining the group', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    const { folder, withdrawal } = await groupArchive(fx, signedAndArchived, { joined: [], left: [] });
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([
      cannotTell(noJoin(APPROVER_B), 'passkey'),
      cannotTell(noJoin(APPROVER_A), 'withdraw', withdrawal),
      notChecked(2),
    ]);
    expect(status).toBe(0);
  });

  test('passes a delegate’s approval in the place of a member the archive shows joining', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B, REQUESTER], left: [] };
    const { folder } = await delegateArchive(fx, signedAndArchived, membership);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([]);
    expect(status).toBe(0);
  });

  test('says it cannot tell, never a problem, for a delegate’s approval in the place of a member seen leaving', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B, REQUESTER], left: [APPROVER_A] };
    const { folder, withdrawal } = await delegateArchive(fx, signedAndArchived, membership);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    const who = `${APPROVER_A}, in whose place ${OUTSIDER} approved,`;
    expect(flagged(lines)).toEqual([
      cannotTell(noJoin(who, APPROVER_A), 'withdraw', withdrawal),
      notChecked(1),
    ]);
    expect(status).toBe(0);
  });

  test('says it cannot tell whether a first-passkeys click counts when the holders are a group’s members', async ({
    fx,
    archived,
    signer,
  }) => {
    // B joined (and may have left unseen); the outsider left (and may be back unseen); the requester,
    // whose click it is, never shown joining: two lines about one approval, counted once.
    const membership = { joined: [APPROVER_A, APPROVER_B, OUTSIDER], left: [OUTSIDER] };
    const folder = await firstPasskeysArchive(fx, archived, membership);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([
      cannotTell(clickUnsettled(`${APPROVER_B}, ${OUTSIDER}`), 'passkey'),
      cannotTell(noJoin(REQUESTER), 'passkey'),
      notChecked(1),
    ]);
    expect(status).toBe(0);
  });
});
