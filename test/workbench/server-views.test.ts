// state.values as Slack builds them from a view's blocks and what the person entered: one shape per
// element type, initial values standing for untouched inputs, option texts carried with values.
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { isEmpty, stateValues, withIds } from '../../src/workbench/views.js';

const opt = (value: string, text = value.toUpperCase()) => ({
  text: { type: 'plain_text' as const, text },
  value,
});
const input = (id: string, element: Record<string, unknown>, optional = false): KnownBlock =>
  ({
    type: 'input',
    block_id: id,
    optional,
    label: { type: 'plain_text', text: id },
    element: { action_id: id, ...element },
  }) as KnownBlock;

const blocks: KnownBlock[] = [
  input('amount', { type: 'plain_text_input', initial_value: '1500' }),
  input('note', { type: 'plain_text_input', multiline: true }, true),
  input('network', {
    type: 'static_select',
    options: [opt('base'), opt('bsc')],
    initial_option: opt('base'),
  }),
  input('bank', { type: 'external_select', min_query_length: 0 }),
  input('save', { type: 'checkboxes', options: [opt('save', 'Save this address')] }, true),
  input('speed', { type: 'radio_buttons', options: [opt('slow'), opt('fast')] }),
  input('when', { type: 'datepicker', initial_date: '2026-11-23' }, true),
  { type: 'section', text: { type: 'mrkdwn', text: 'no state' } },
];

describe('state.values', () => {
  it('untouched inputs carry their initial values in Slack shapes', () => {
    expect(stateValues(blocks)).toEqual({
      amount: { amount: { type: 'plain_text_input', value: '1500' } },
      note: { note: { type: 'plain_text_input', value: null } },
      network: {
        network: {
          type: 'static_select',
          selected_option: { text: { type: 'plain_text', text: 'BASE', emoji: true }, value: 'base' },
        },
      },
      bank: { bank: { type: 'external_select', selected_option: null } },
      save: { save: { type: 'checkboxes', selected_options: [] } },
      speed: { speed: { type: 'radio_buttons', selected_option: null } },
      when: { when: { type: 'datepicker', selected_date: '2026-11-23' } },
    });
  });

  it("the page's values replace them, with option texts from the view or from the suggestions shown", () => {
    const values = stateValues(
      blocks,
      {
        amount: { amount: '' },
        network: { network: 'bsc' },
        bank: { bank: '058' },
        save: { save: ['save'] },
        speed: { speed: 'fast' },
      },
      (block) => (block === 'bank' ? [opt('058', 'Guaranty Trust Bank')] : []),
    );
    expect(values.amount?.amount).toEqual({ type: 'plain_text_input', value: null });
    expect(values.network?.network?.selected_option?.text.text).toBe('BSC');
    expect(values.bank?.bank?.selected_option).toEqual({
      text: { type: 'plain_text', text: 'Guaranty Trust Bank', emoji: true },
      value: '058',
    });
    expect(values.save?.save?.selected_options?.map((o) => o.text.text)).toEqual(['Save this address']);
    expect(values.speed?.speed?.selected_option?.value).toBe('fast');
    expect(isEmpty(values.amount?.amount ?? { type: 'x' })).toBe(true);
    expect(isEmpty(values.speed?.speed ?? { type: 'x' })).toBe(false);
  });

  it('blocks and elements without IDs get them, as Slack fills them in', () => {
    const filled = withIds([
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' } }] },
    ] as KnownBlock[]);
    const block = filled[0] as { block_id?: string; elements: Array<{ action_id?: string }> };
    expect(block.block_id).toMatch(/^\S{4}$/);
    expect(block.elements[0]?.action_id).toMatch(/^\S{4}$/);
  });
});
