// The modal kit every feature's forms are drawn with: inputs, selects, the network choices, field
// errors under their field, the modal frame with the environment line, a modal that only says something.
// Pure builders: data in, view out. Block ids equal action ids so submissions read `values[id][id]`.
import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { LookAlikeMark, SameRequestMark } from '../../approvals/index.js';
import { clipMrkdwn, clipPlain, escapeMrkdwn, markHiddenCharacters } from '../../format/mrkdwn.js';
import { type AddressFamily, addressFamily } from '../../format/wallet-address.js';
import type { FieldErrors } from '../types.js';

export interface NetworkChoice {
  id: string;
  name: string;
  shortName: string;
}

/** Enabled networks only: a disabled one is never offered. */
export function toNetworkChoices(
  networks: ReadonlyArray<{ id: string; name: string; short_name: string; isDisabled: boolean }>,
): NetworkChoice[] {
  return networks
    .filter((n) => !n.isDisabled)
    .map((n) => ({ id: n.id, name: n.name, shortName: n.short_name }));
}

/** plain_text, shown as typed: outside text in options (network, bank names) has its hidden characters marked. */
export const plain = (text: string) => ({
  type: 'plain_text' as const,
  text: clipPlain(markHiddenCharacters(text), 75),
});

/** A modal's title: Slack refuses one longer than 24 characters, so a longer one is cut with the mark. */
const modalTitle = (text: string) => ({
  type: 'plain_text' as const,
  text: clipPlain(markHiddenCharacters(text), 24),
});

export const option = (text: string, value: string): PlainTextOption => ({ text: plain(text), value });

/** What a submission needs to check without asking the service: networks offered, non-EVM families. */
export interface NetworksMetadata {
  networks: string[];
  /** Network id → address family, for the networks that are not EVM. */
  families: Record<string, AddressFamily>;
  /** The look-alike address the form showed with its "I compared" box: a tick counts for it only. */
  lookAlike?: string;
  /** The request the form showed as the same payment, with its "file it again" box: a tick counts for it only. */
  sameAs?: string;
}

export function networksMetadata(
  networks: NetworkChoice[],
  lookAlike?: LookAlikeMark,
  sameAs?: SameRequestMark,
): NetworksMetadata {
  // No prototype: a network the service calls `__proto__` is kept as an entry like any other.
  const families = Object.create(null) as Record<string, AddressFamily>;
  for (const n of networks) {
    const family = addressFamily(n);
    if (family !== 'evm') families[n.id] = family;
  }
  return {
    networks: networks.map((n) => n.id),
    families,
    ...(lookAlike ? { lookAlike: lookAlike.candidate } : {}),
    ...(sameAs ? { sameAs: sameAs.id } : {}),
  };
}

/** Slack holds an option's value to 150 characters, and a select or a search answer to 100 options. */
export const MAX_OPTION_VALUE = 150;
const MAX_OPTIONS = 100;

/**
 * The first 100 options whose value fits. A value is what a submission is read by, so it is never cut:
 * an option whose value would not fit is left out (for a network or a whitelisted address, which can
 * still be typed) rather than offered under a value that reads back as something else.
 */
export function optionsThatFit(options: PlainTextOption[]): PlainTextOption[] {
  return options.filter((o) => (o.value ?? '').length <= MAX_OPTION_VALUE).slice(0, MAX_OPTIONS);
}

/**
 * A context line saying that `left` options were left out by Slack's option limits (`what`: singular
 * and plural), and what to do instead; none when none were.
 */
export function leftOutLine(left: number, what: [string, string], instead: string): KnownBlock[] {
  if (left <= 0) return [];
  const said = left === 1 ? `1 ${what[0]} is` : `${left} ${what[1]} are`;
  const text = `${said} not listed: Slack takes 100 options of at most 150 characters. ${instead}`;
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }];
}

/** The networks Slack's option limits leave out of a network select, said under it. */
export const networksLeftOut = (networks: NetworkChoice[], offered: PlainTextOption[]): KnownBlock[] =>
  leftOutLine(
    networks.length - offered.length,
    ['network', 'networks'],
    'None of those can be chosen in this form; `/cngn networks` lists every network.',
  );

export function networkOptions(networks: NetworkChoice[]): PlainTextOption[] {
  return optionsThatFit(networks.map((n) => option(`${n.name} (${n.shortName})`, n.id)));
}

export function textInput(
  id: string,
  label: string,
  options: {
    initial?: string;
    placeholder?: string;
    optional?: boolean;
    multiline?: boolean;
    hint?: string;
  } = {},
): KnownBlock {
  return {
    type: 'input',
    block_id: id,
    optional: options.optional ?? false,
    label: plain(label),
    ...(options.hint ? { hint: plain(options.hint) } : {}),
    element: {
      type: 'plain_text_input',
      action_id: id,
      ...(options.multiline ? { multiline: true } : {}),
      ...(options.initial ? { initial_value: options.initial } : {}),
      ...(options.placeholder ? { placeholder: plain(options.placeholder) } : {}),
    },
  };
}

export function selectInput(
  id: string,
  label: string,
  options: PlainTextOption[],
  settings: { initial?: string; optional?: boolean; placeholder?: string } = {},
): KnownBlock {
  const initial = options.find((o) => o.value === settings.initial);
  return {
    type: 'input',
    block_id: id,
    optional: settings.optional ?? false,
    label: plain(label),
    element: {
      type: 'static_select',
      action_id: id,
      options: options.length > 0 ? options : [option('(none)', '__none__')],
      ...(initial ? { initial_option: initial } : {}),
      ...(settings.placeholder ? { placeholder: plain(settings.placeholder) } : {}),
    },
  };
}

/** A failed check after submission, shown right under its field. */
export function withErrors(blocks: KnownBlock[], errors: FieldErrors = {}): KnownBlock[] {
  return blocks.flatMap((block) => {
    const id = 'block_id' in block ? block.block_id : undefined;
    const error = id ? errors[id] : undefined;
    if (!error) return [block];
    return [
      block,
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: clipMrkdwn(`:warning: ${escapeMrkdwn(error)}`) }],
      },
    ];
  });
}

export function modal(
  callbackId: string,
  title: string,
  blocks: KnownBlock[],
  options: { submit?: string; metadata?: string; environment: string },
): ModalView {
  return {
    type: 'modal',
    callback_id: callbackId,
    title: modalTitle(title),
    submit: plain(options.submit ?? 'Ask for approval'),
    close: plain('Cancel'),
    ...(options.metadata ? { private_metadata: options.metadata } : {}),
    blocks: [
      ...blocks,
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: clipMrkdwn(
              `${escapeMrkdwn(options.environment)} · nothing moves until another person approves`,
            ),
          },
        ],
      },
    ],
  };
}

/** A modal that only says something (checking…, filed, could not file); `text` is mrkdwn, outside values escaped. */
export function noticeView(title: string, text: string): ModalView {
  return {
    type: 'modal',
    title: modalTitle(title),
    close: plain('Close'),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
