// A transaction whose time the service writes in a form no Date reads: `/cngn tx` still lists its page
// (the time said to be unreadable) and `/cngn tx <ref>` shows the time as written.
import { describe, expect } from 'vitest';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { UNREADABLE_TIMES } from '../../support/outside-times.js';
import { commandAnswer } from '../../support/slack-requests.js';

describe('/cngn tx with a time that is no date', () => {
  test('lists the page with every transaction, and shows that time as written in the details', async ({
    harness: h,
  }) => {
    const { data } = await h.bot.client.getTransactions({ page: 1, limit: 10 });
    const [misdated, other] = data.map((tx) => tx.trx_ref).filter((ref): ref is string => Boolean(ref));
    if (!misdated || !other) throw new Error('the sandbox has fewer than two transactions with a reference');
    h.sandbox.misstateTime(misdated, UNREADABLE_TIMES.dayFirst);

    const page = JSON.stringify((await commandAnswer(h, 'tx', 'UREQ')).body.blocks);
    expect(page).toContain(`\`${misdated}\` · at an unreadable time`);
    expect(page).toContain(`\`${other}\``);
    expect(page).toMatch(/ ago/);

    const detail = JSON.stringify((await commandAnswer(h, `tx ${misdated}`, 'UREQ')).body.blocks);
    expect(detail).toContain(`*Created*\\n${UNREADABLE_TIMES.dayFirst}`);
  });
});
