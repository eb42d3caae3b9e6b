// A revocation against a delegate's approval already under way, on every store: the delegate's check
// has read the delegation (still live) and its write has not landed when the revocation comes. Once the
// revocation is confirmed, no approval through that delegation may land after it: the revocation
// waits for the approval under way (which then counts, as it came first), or the approval is refused.
import { describe, expect } from 'vitest';
import type { Delegation } from '../../src/access/delegations.js';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { ApprovalCheck } from '../../src/access/policy.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { engineTest as test, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const ADE = 'U_ADE'; // approver
const CHIDI = 'U_CHIDI'; // approver, away
const BOLA = 'U_BOLA'; // Chidi's delegate, no approver

/** The policy, holding a delegate's approval just after its check read the delegations (before the write). */
class HeldPolicy extends ApprovalPolicy {
  held: { arrived: Promise<void>; release: () => void } | undefined;
  private arrive: (() => void) | undefined;
  private gate: Promise<void> | undefined;

  holdNext(): void {
    let release!: () => void;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (this.arrive = resolve));
    this.held = { arrived, release };
  }

  override async check(
    request: ApprovalRequest,
    user: string,
    delegations?: readonly Delegation[],
  ): Promise<ApprovalCheck> {
    const result = await super.check(request, user, delegations);
    if (user === BOLA && this.gate) {
      const gate = this.gate;
      this.gate = undefined;
      this.arrive?.();
      await gate;
    }
    return result;
  }
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`revoking on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('lets no delegate approval through the delegation land after the revocation was confirmed', async ({
      replicas,
      startEngine,
      defer,
    }) => {
      const { a, b } = await replicas('delegation-revoke-race');
      const policy = (held = false) => {
        const options = { approvers: [ADE, CHIDI], tiers: parseTiers('0:1,1000000:2') };
        return held ? new HeldPolicy(options) : new ApprovalPolicy(options);
      };
      const approving = policy(true) as HeldPolicy;
      const fx = await startEngine({ store: a, engine: { policy: approving } });
      const other = await fx.another({ store: b, engine: { policy: policy() } });
      defer(() => other.engine.stop());
      const [networkId] = await twoNetworks(fx.client);
      const filed = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(Date.now() + 86_400_000));
      expect(await approveAsSeen(other.engine, filed.id, ADE)).toMatchObject({ ok: true });
      await other.engine.idle();
      expect(await fx.engine.liveDelegations()).toHaveLength(1);
      // A two-approval amount: the delegate's approval is not final, so no re-check stands between.
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));

      approving.holdNext();
      const order: string[] = [];
      const approval = approveAsSeen(fx.engine, request.id, BOLA).then((result) => {
        order.push(result.ok ? 'approved' : `refused: ${result.reason}`);
        return result;
      });
      await approving.held?.arrived; // the delegate's check found the delegation live
      const revocation = other.engine.revokeDelegations(CHIDI, BOLA).then((revoked) => {
        order.push('revoked');
        return revoked;
      });
      // Give the revocation every chance to finish while the approval is held, then let it go.
      await Promise.race([revocation, new Promise((resolve) => setTimeout(resolve, 300))]);
      approving.held?.release();
      await Promise.all([approval, revocation]);
      expect(await revocation).toHaveLength(1);

      // Whatever the order, nothing through the delegation landed after the revocation was confirmed.
      expect(order.indexOf('revoked')).toBe(order.length - 1);
      const after = await fx.engine.get(request.id);
      if (order[0] === 'approved') {
        expect(after?.approvals).toEqual([expect.objectContaining({ user: BOLA, onBehalfOf: CHIDI })]);
        const revokedAt = Date.parse(
          (await fx.engine.get(filed.id))?.history.find((s) => s.action === 'delegation-revoked')?.at ?? '',
        );
        expect(Date.parse(after?.approvals[0]?.at ?? '')).toBeLessThanOrEqual(revokedAt);
      } else {
        expect(after?.approvals).toEqual([]);
      }
      // And any approval after it is refused.
      expect(await approveAsSeen(fx.engine, request.id, BOLA)).toMatchObject({ ok: false });
      await fx.engine.idle();
      await other.engine.idle();
    });
  });
}
