// A network or whitelisted address that Slack's option limits leave out of a form is not dropped
// silently: a short line under its select says how many were left out and what to do instead (type
// the address; a network cannot be typed, so it names the list of every network).
import { describe, expect, it } from 'vitest';
import { bridgeModal, whitelistModal, withdrawModal } from '../../../src/slack/approvals/blocks/modals.js';
import { quoteModal } from '../../../src/slack/deposits/blocks.js';
import { checkView } from '../../../src/workbench/slack-rules.js';
import { slackTexts } from '../builders/support.js';

const BASE = { id: 'base', name: 'Base', shortName: 'base' };
const LONG_ID = { id: `net-${'x'.repeat(160)}`, name: 'Long', shortName: 'long' };
const manyNetworks = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `net-${i}`, name: `Net ${i}`, shortName: `n${i}` }));
const address = (c: string, length = 40) => `0x${c.repeat(length)}`;
const said = (view: { blocks: unknown[] }) => slackTexts(view).mrkdwn.join('\n');

describe('the withdraw form', () => {
  it('says how many whitelisted addresses were left out, and to type the address', () => {
    const view = withdrawModal({
      networks: [BASE],
      whitelist: [
        { networkId: 'base', networkName: 'Base', address: address('a') },
        { networkId: 'base', networkName: 'Base', address: address('b', 200) },
        { networkId: 'base', networkName: 'Base', address: address('c', 200) },
      ],
      environment: 'LIVE',
    });
    expect(() => checkView(view, 'modal')).not.toThrow();
    expect(said(view)).toContain('2 whitelisted addresses are not listed');
    expect(said(view)).toContain('Type the address in the box below.');
    expect(said(view)).not.toContain('network is not listed');
  });

  it('says a network was left out, and where every network is listed', () => {
    const view = withdrawModal({ networks: [BASE, LONG_ID], whitelist: [], environment: 'LIVE' });
    expect(() => checkView(view, 'modal')).not.toThrow();
    expect(said(view)).toContain('1 network is not listed');
    expect(said(view)).toContain('`/cngn networks` lists every network');
  });

  it('says nothing of the kind when every option fits', () => {
    const view = withdrawModal({
      networks: [BASE],
      whitelist: [{ networkId: 'base', networkName: 'Base', address: address('a') }],
      environment: 'LIVE',
    });
    expect(said(view)).not.toContain('not listed');
  });
});

describe('the bridge, whitelist and quote forms', () => {
  it('say how many networks past Slack’s 100 options were left out', () => {
    for (const view of [
      bridgeModal({ networks: manyNetworks(103), environment: 'LIVE' }),
      whitelistModal({ networks: manyNetworks(103), environment: 'LIVE' }),
      quoteModal({ networks: manyNetworks(103), environment: 'LIVE' }),
    ]) {
      expect(() => checkView(view, 'modal')).not.toThrow();
      expect(said(view)).toContain('3 networks are not listed');
    }
  });
});
