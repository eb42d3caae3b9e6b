// Modals that file approval requests (withdraw, bridge, whitelist add) and the reject reason modal.
// Pure builders: data in, view out. Block ids equal action ids so submissions read `values[id][id]`.

import type { KnownBlock, ModalView } from '@slack/types';
import type { LookAlikeMark, SameRequestMark } from '../../../approvals/index.js';
import { shortAddress } from '../../../format/evm-address.js';
import { clipMrkdwn, escapeMrkdwn } from '../../../format/mrkdwn.js';
import type { FieldErrors, Prefill } from '../../types.js';
import {
  leftOutLine,
  modal,
  type NetworkChoice,
  networkOptions,
  networksLeftOut,
  networksMetadata,
  option,
  optionsThatFit,
  plain,
  selectInput,
  textInput,
  toNetworkChoices,
  withErrors,
} from '../../ui/modal.js';
import { lookAlikeText } from './checks.js';
import { sameRequestInputs } from './same-request.js';

export const WITHDRAW_VIEW = 'withdraw.submit';
export const BRIDGE_VIEW = 'bridge.submit';
export const WHITELIST_VIEW = 'whitelist.submit';
export const REJECT_VIEW = 'approval.reject.submit';

export const WITHDRAW = {
  amount: 'withdraw.amount',
  network: 'withdraw.network',
  whitelisted: 'withdraw.whitelisted',
  address: 'withdraw.address',
  save: 'withdraw.save',
  purpose: 'withdraw.purpose',
  compared: 'withdraw.compared',
  again: 'withdraw.again',
} as const;
export const BRIDGE = {
  amount: 'bridge.amount',
  origin: 'bridge.origin',
  destination: 'bridge.destination',
  address: 'bridge.address',
  sender: 'bridge.sender',
  purpose: 'bridge.purpose',
  compared: 'bridge.compared',
  again: 'bridge.again',
} as const;
export const WHITELIST = {
  network: 'whitelist.network',
  address: 'whitelist.address',
  compared: 'whitelist.compared',
} as const;
export const REJECT = { reason: 'reject.reason' } as const;

export interface WhitelistChoice {
  networkId: string;
  networkName: string;
  address: string;
}

/** The whitelisted addresses on enabled networks, as the withdraw form offers them. */
export function whitelistChoices(
  networks: ReadonlyArray<{ id: string; name: string; short_name: string; isDisabled: boolean }>,
  whitelist: ReadonlyArray<{ networkId: string; publicKey: string; network?: { name: string } | null }>,
): WhitelistChoice[] {
  const enabled = new Set(toNetworkChoices(networks).map((c) => c.id));
  return whitelist
    .filter((w) => enabled.has(w.networkId))
    .map((w) => ({
      networkId: w.networkId,
      networkName: w.network?.name ?? networks.find((n) => n.id === w.networkId)?.name ?? '',
      address: w.publicKey,
    }));
}

/**
 * Shown under the address when the check found a look-alike: both addresses with the differences
 * marked, and the box the requester must tick to file it.
 */
function lookAlikeInputs(id: string, mark: LookAlikeMark | undefined): KnownBlock[] {
  if (!mark) return [];
  const compared = option('I compared the whole address, character by character', 'compared');
  return [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${lookAlikeText(mark)}\nIf it is the address you mean, tick the box: the request then needs one more approver than usual.`,
      },
    },
    {
      type: 'input',
      block_id: id,
      optional: false,
      label: plain('Compared'),
      element: {
        type: 'checkboxes',
        action_id: id,
        options: [compared],
        ...(mark.compared ? { initial_options: [compared] } : {}),
      },
    },
  ];
}

/** `blocks` with `extra` placed right after the block `afterId` (at the end if it is not there). */
function insertAfter(blocks: KnownBlock[], afterId: string, extra: KnownBlock[]): KnownBlock[] {
  const at = blocks.findIndex((b) => 'block_id' in b && b.block_id === afterId);
  if (at < 0) return [...blocks, ...extra];
  return [...blocks.slice(0, at + 1), ...extra, ...blocks.slice(at + 1)];
}

/** What a payment is for, required on every form that moves money; approvers and the audit log see it. */
export function purposeInput(id: string, initial?: string): KnownBlock {
  return textInput(id, 'Purpose', {
    initial,
    placeholder: 'Supplier payout INV-2231',
    hint: 'What the payment is for, in 3 to 140 characters: approvers see it.',
  });
}

/** What each address form (withdraw, bridge, whitelist) is drawn from besides its own fields. */
interface AddressFormInput {
  networks: NetworkChoice[];
  prefill?: Prefill;
  errors?: FieldErrors;
  /** The address typed looks like a known one: shown, with the box to tick. */
  lookAlike?: LookAlikeMark;
  /** The same payment was filed before: shown, with the box to tick to file it again, as of `now`. */
  sameAs?: { mark: SameRequestMark; now: Date };
  environment: string;
}

/**
 * An address form as shown, first or again: the look-alike (if any) right under the address, each
 * field's error right under its field, and the networks offered and the look-alike in the metadata.
 */
function addressForm(
  form: {
    view: string;
    title: string;
    ids: { address: string; compared: string; again?: string };
    submit?: string;
  },
  blocks: KnownBlock[],
  input: AddressFormInput,
): ModalView {
  const again = form.ids.again
    ? sameRequestInputs(form.ids.again, input.sameAs?.mark, input.sameAs?.now ?? new Date())
    : [];
  const shown = withErrors(
    [...insertAfter(blocks, form.ids.address, lookAlikeInputs(form.ids.compared, input.lookAlike)), ...again],
    input.errors,
  );
  return modal(form.view, form.title, shown, {
    environment: input.environment,
    submit: form.submit,
    metadata: JSON.stringify(networksMetadata(input.networks, input.lookAlike, input.sameAs?.mark)),
  });
}

export function withdrawModal(input: AddressFormInput & { whitelist: WhitelistChoice[] }): ModalView {
  const p = input.prefill ?? {};
  const whitelisted = optionsThatFit(
    input.whitelist.map((w) =>
      option(`${w.networkName} · ${shortAddress(w.address)}`, `${w.networkId}|${w.address}`),
    ),
  );
  const networks = networkOptions(input.networks);
  const blocks: KnownBlock[] = [
    textInput(WITHDRAW.amount, 'Amount (₦ / cNGN)', { initial: p.amount, placeholder: '1,500.50' }),
    selectInput(WITHDRAW.network, 'Network', networks, { initial: p.network }),
    ...networksLeftOut(input.networks, networks),
    ...(whitelisted.length > 0
      ? [
          selectInput(WITHDRAW.whitelisted, 'Whitelisted address', whitelisted, {
            optional: true,
            initial: p.whitelisted,
          }),
        ]
      : []),
    ...leftOutLine(
      input.whitelist.length - whitelisted.length,
      ['whitelisted address', 'whitelisted addresses'],
      'Type the address in the box below.',
    ),
    textInput(WITHDRAW.address, whitelisted.length > 0 ? '…or type an address' : 'Destination address', {
      initial: p.address,
      optional: whitelisted.length > 0,
      placeholder: '0x…',
    }),
    {
      type: 'input',
      block_id: WITHDRAW.save,
      optional: true,
      label: plain('Whitelist'),
      element: {
        type: 'checkboxes',
        action_id: WITHDRAW.save,
        options: [option('Save this address for later withdrawals', 'save')],
      },
    },
    purposeInput(WITHDRAW.purpose, p.purpose),
  ];
  return addressForm({ view: WITHDRAW_VIEW, title: 'Withdraw cNGN', ids: WITHDRAW }, blocks, input);
}

export function bridgeModal(input: AddressFormInput): ModalView {
  const p = input.prefill ?? {};
  const options = networkOptions(input.networks);
  const blocks: KnownBlock[] = [
    textInput(BRIDGE.amount, 'Amount (₦ / cNGN)', { initial: p.amount, placeholder: '100000' }),
    selectInput(BRIDGE.origin, 'From network', options, { initial: p.origin }),
    selectInput(BRIDGE.destination, 'To network', options, { initial: p.destination }),
    ...networksLeftOut(input.networks, options),
    textInput(BRIDGE.address, 'Destination address', { initial: p.address, placeholder: '0x…' }),
    textInput(BRIDGE.sender, 'Sender address (optional)', {
      initial: p.sender,
      optional: true,
      hint: 'The address you will send from on the origin network',
    }),
    purposeInput(BRIDGE.purpose, p.purpose),
  ];
  return addressForm(
    { view: BRIDGE_VIEW, title: 'Bridge cNGN', ids: BRIDGE, submit: 'Get quote and ask' },
    blocks,
    input,
  );
}

export function whitelistModal(input: AddressFormInput): ModalView {
  const p = input.prefill ?? {};
  const networks = networkOptions(input.networks);
  const blocks: KnownBlock[] = [
    selectInput(WHITELIST.network, 'Network', networks, { initial: p.network }),
    ...networksLeftOut(input.networks, networks),
    textInput(WHITELIST.address, 'Address', { initial: p.address, placeholder: '0x…' }),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: ':lock: The service enforces a 24 h timelock between whitelist additions: after one is added, the next can only be added a day later.',
        },
      ],
    },
  ];
  return addressForm({ view: WHITELIST_VIEW, title: 'Whitelist an address', ids: WHITELIST }, blocks, input);
}

export function rejectModal(input: { requestId: string; title: string; channel?: string }): ModalView {
  return {
    type: 'modal',
    callback_id: REJECT_VIEW,
    title: plain('Reject request'),
    submit: plain('Reject'),
    close: plain('Back'),
    private_metadata: JSON.stringify({ id: input.requestId, channel: input.channel }),
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: clipMrkdwn(`Reject *${escapeMrkdwn(input.title)}*?`) },
      },
      textInput(REJECT.reason, 'Reason (the requester sees it)', { multiline: true }),
    ],
  };
}
