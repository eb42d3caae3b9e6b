// The options a form offers (networks, whitelisted addresses) and those a bank search answers with keep
// to Slack's limits: at most 100, text cut to 75 characters with the cut mark, and a value (what a
// submission is read by) never cut: an option whose value would pass 150 characters is left out, or,
// for a bank, offered under its code alone where the service lists that code once.
import { describe, expect, it } from 'vitest';
import { CUT_MARK } from '../../../src/format/mrkdwn.js';
import {
  bankOptions,
  bankUnderCode,
  parseBankOption,
  redeemModal,
  settlementModal,
} from '../../../src/slack/approvals/blocks/bank-modal.js';
import { withdrawModal } from '../../../src/slack/approvals/blocks/modals.js';
import { checkOptions, checkView } from '../../../src/workbench/slack-rules.js';

const LONG_NAME = `Cooperative ${'Mutual '.repeat(30)}Bank`;
const GTB = { code: '058', name: 'Guaranty Trust Bank' };

/** Every option of every static select in a view. */
function optionsOf(view: { blocks: unknown[] }): Array<{ text: { text: string }; value: string }> {
  return view.blocks.flatMap((b) => {
    const element = (b as { element?: { type?: string; options?: [] } }).element;
    return element?.type === 'static_select' ? (element.options ?? []) : [];
  });
}

/** The option a form's bank picker starts with. */
function initialBank(view: { blocks: unknown[] }): { text: { text: string }; value: string } | undefined {
  for (const b of view.blocks) {
    const element = (b as { element?: { type?: string; initial_option?: never } }).element;
    if (element?.type === 'external_select') return element.initial_option;
  }
  return undefined;
}

describe('bank search options', () => {
  it('offers a bank whose name is too long for a value under its code alone, read back as listed', () => {
    const banks = [GTB, { code: '999', name: LONG_NAME }];
    const options = bankOptions(banks, '');
    expect(() => checkOptions({ options })).not.toThrow();
    const long = options.find((o) => o.value?.startsWith('999|'));
    expect(long?.value).toBe('999|');
    expect(long?.text.text.endsWith(CUT_MARK)).toBe(true);
    const chosen = parseBankOption(long?.value ?? '');
    expect(chosen && bankUnderCode(banks, chosen)).toEqual({ code: '999', name: LONG_NAME });
  });

  it('leaves out a bank too long for a value whose code the service gives to several banks', () => {
    const banks = [GTB, { code: '090', name: LONG_NAME }, { code: '090', name: 'Beta Microfinance Bank' }];
    const options = bankOptions(banks, '');
    expect(() => checkOptions({ options })).not.toThrow();
    expect(options.map((o) => o.value)).toEqual(['058|Guaranty Trust Bank', '090|Beta Microfinance Bank']);
  });

  it('shows a bank the service names with spaces only under its code, never as a blank option', () => {
    const options = bankOptions([GTB, { code: '777', name: '   ' }], '');
    expect(options.find((o) => o.value?.startsWith('777|'))?.text.text).toBe('777');
  });

  it('answers at most 100 options however many banks match', () => {
    const banks = Array.from({ length: 250 }, (_, i) => ({ code: String(i), name: `Bank ${i}` }));
    expect(() => checkOptions({ options: bankOptions(banks, 'bank') })).not.toThrow();
  });

  it('shows a form again with a bank chosen under its code alone, named as listed or by its code', () => {
    const chosen = parseBankOption('999|');
    if (!chosen) throw new Error('999| did not parse');
    const views = [
      redeemModal({ bank: chosen, environment: 'LIVE' }),
      settlementModal({ bank: chosen, environment: 'LIVE' }),
      redeemModal({ bank: chosen, bankListedAs: LONG_NAME, environment: 'LIVE' }),
      settlementModal({ bank: chosen, bankListedAs: LONG_NAME, environment: 'LIVE' }),
    ];
    for (const view of views) expect(() => checkView(view, 'modal')).not.toThrow();
    const initial = views.map(initialBank);
    expect(initial.map((o) => o?.value)).toEqual(['999|', '999|', '999|', '999|']);
    const listed = `${LONG_NAME.slice(0, 75 - CUT_MARK.length)}${CUT_MARK}`;
    expect(initial.map((o) => o?.text.text)).toEqual(['999', '999', listed, listed]);
  });

  it('never offers a bank whose code holds the `|` an option is read back by', () => {
    const banks = [
      { code: 'A', name: 'Alpha' },
      { code: 'A|B', name: 'Bravo' },
    ];
    const options = bankOptions(banks, '');
    expect(options.map((o) => o.value)).toEqual(['A|Alpha']);
    for (const o of options) {
      const chosen = parseBankOption(o.value ?? '');
      expect(chosen && bankUnderCode(banks, chosen)).toEqual({ code: 'A', name: 'Alpha' });
    }
    const view = redeemModal({ bank: { code: 'A|B', name: 'Bravo' }, environment: 'LIVE' });
    expect(initialBank(view)).toBeUndefined();
  });

  it('shows the redeem form with a chosen bank too long for a value without it chosen', () => {
    const view = redeemModal({ bank: { code: 'x'.repeat(160), name: 'Far Bank' }, environment: 'LIVE' });
    expect(() => checkView(view, 'modal')).not.toThrow();
  });
});

describe('a form’s options', () => {
  it('leaves out a network id and a whitelisted address too long for a value, keeping the others', () => {
    const longId = `net-${'x'.repeat(160)}`;
    const view = withdrawModal({
      networks: [
        { id: 'base', name: 'Base', shortName: 'base' },
        { id: longId, name: 'Long', shortName: 'long' },
      ],
      whitelist: [
        { networkId: 'base', networkName: 'Base', address: `0x${'a'.repeat(40)}` },
        { networkId: 'base', networkName: 'Base', address: `0x${'b'.repeat(200)}` },
      ],
      environment: 'LIVE',
    });
    expect(() => checkView(view, 'modal')).not.toThrow();
    expect(optionsOf(view).map((o) => o.value)).toEqual(['base', `base|0x${'a'.repeat(40)}`]);
  });
});
