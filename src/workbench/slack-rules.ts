// The rules real Slack holds the bot to, so the workbench refuses what Slack would refuse, with
// Slack's own error names: Block Kit limits (50 blocks in a message, 100 in a modal or App Home,
// 3,000 characters per section text, 100 options…), modal title/submit rules, the 3 s trigger_id
// lifetime, and the per-channel posting rate (about 1 message a second with a short burst).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

// ---- Block Kit ----

const plain = (max: number) =>
  z.looseObject({
    type: z.literal('plain_text'),
    text: z.string().min(1, 'must be at least 1 character').max(max, `must be at most ${max} characters`),
    emoji: z.boolean().optional(),
  });
const textObject = (max: number) =>
  z.looseObject({
    type: z.enum(['plain_text', 'mrkdwn']),
    text: z.string().min(1, 'must be at least 1 character').max(max, `must be at most ${max} characters`),
  });
const actionId = z.string().max(255, 'must be at most 255 characters').optional();
const confirm = z
  .looseObject({
    title: plain(100),
    text: textObject(300),
    confirm: plain(30),
    deny: plain(30),
    style: z.enum(['primary', 'danger']).optional(),
  })
  .optional();
const option = z.looseObject({
  text: textObject(75),
  value: z.string().max(150, 'must be at most 150 characters'),
  description: plain(75).optional(),
});
const options = (max: number) =>
  z.array(option).min(1, 'must have at least 1 option').max(max, `must have at most ${max} options`);
const optionGroups = z
  .array(z.looseObject({ label: plain(75), options: options(100) }))
  .max(100, 'must have at most 100 option groups');

const button = z.looseObject({
  type: z.literal('button'),
  text: plain(75),
  action_id: actionId,
  value: z.string().max(2000, 'must be at most 2000 characters').optional(),
  url: z.string().max(3000, 'must be at most 3000 characters').optional(),
  style: z.enum(['primary', 'danger']).optional(),
  confirm,
});
const staticSelect = z
  .looseObject({
    type: z.enum(['static_select', 'multi_static_select']),
    placeholder: plain(150).optional(),
    action_id: actionId,
    options: options(100).optional(),
    option_groups: optionGroups.optional(),
    confirm,
  })
  .refine((s) => Boolean(s.options) !== Boolean(s.option_groups), {
    message: 'must provide exactly one of options or option_groups',
  });
const externalSelect = z.looseObject({
  type: z.enum(['external_select', 'multi_external_select']),
  placeholder: plain(150).optional(),
  action_id: actionId,
  min_query_length: z.number().int().min(0).optional(),
  initial_option: option.optional(),
  confirm,
});
const overflow = z.looseObject({
  type: z.literal('overflow'),
  action_id: actionId,
  options: z.array(option).min(1).max(5, 'must have at most 5 options'),
  confirm,
});
const choices = z.looseObject({
  type: z.enum(['checkboxes', 'radio_buttons']),
  action_id: actionId,
  options: z.array(option).min(1).max(10, 'must have at most 10 options'),
  confirm,
});
const textInput = z.looseObject({
  type: z.literal('plain_text_input'),
  action_id: actionId,
  placeholder: plain(150).optional(),
  initial_value: z.string().max(3000).optional(),
  multiline: z.boolean().optional(),
  min_length: z.number().int().min(0).max(3000).optional(),
  max_length: z.number().int().min(1).max(3000).optional(),
});
const otherElement = z.looseObject({
  type: z.enum([
    'datepicker',
    'timepicker',
    'datetimepicker',
    'users_select',
    'multi_users_select',
    'conversations_select',
    'multi_conversations_select',
    'channels_select',
    'multi_channels_select',
    'number_input',
    'email_text_input',
    'url_text_input',
    'rich_text_input',
    'file_input',
    'image',
    'workflow_button',
  ]),
  action_id: actionId,
});
// By type, so a problem is reported inside the element (not as "no variant matched").
const element = z.discriminatedUnion('type', [
  button,
  staticSelect,
  externalSelect,
  overflow,
  choices,
  textInput,
  otherElement,
]);
const imageElement = z.looseObject({
  type: z.literal('image'),
  image_url: z.string().max(3000).optional(),
  alt_text: z.string().max(2000),
});

const blockId = z.string().max(255, 'must be at most 255 characters').optional();
const block = z.discriminatedUnion('type', [
  z
    .looseObject({
      type: z.literal('section'),
      block_id: blockId,
      text: textObject(3000).optional(),
      fields: z.array(textObject(2000)).max(10, 'must have at most 10 fields').optional(),
      accessory: element.optional(),
    })
    .refine((s) => s.text !== undefined || s.fields !== undefined, {
      message: 'must provide text or fields',
    }),
  z.looseObject({ type: z.literal('header'), block_id: blockId, text: plain(150) }),
  z.looseObject({ type: z.literal('divider'), block_id: blockId }),
  z.looseObject({
    type: z.literal('context'),
    block_id: blockId,
    elements: z
      .array(z.discriminatedUnion('type', [textObject(3000), imageElement]))
      .min(1)
      .max(10, 'must have at most 10 elements'),
  }),
  z.looseObject({
    type: z.literal('actions'),
    block_id: blockId,
    elements: z.array(element).min(1).max(25, 'must have at most 25 elements'),
  }),
  z.looseObject({
    type: z.literal('image'),
    block_id: blockId,
    image_url: z.string().max(3000).optional(),
    alt_text: z.string().max(2000),
    title: plain(2000).optional(),
  }),
  z.looseObject({
    type: z.literal('input'),
    block_id: blockId,
    label: plain(2000),
    element,
    hint: plain(2000).optional(),
    optional: z.boolean().optional(),
    dispatch_action: z.boolean().optional(),
  }),
  z.looseObject({ type: z.literal('rich_text'), block_id: blockId, elements: z.array(z.unknown()) }),
  z.looseObject({ type: z.literal('markdown'), block_id: blockId, text: z.string().max(12_000) }),
  z.looseObject({ type: z.literal('file'), block_id: blockId }),
  z.looseObject({ type: z.literal('video'), block_id: blockId }),
]);

const pointer = (path: ReadonlyArray<PropertyKey>) => `/${path.map(String).join('/')}`;
const issuesOf = (error: z.ZodError, prefix: PropertyKey[]) =>
  error.issues.map(
    (issue) => `[ERROR] ${issue.message} [json-pointer:${pointer([...prefix, ...issue.path])}]`,
  );

/** Slack's messages for a blocks array (message: 50 blocks, view: 100), or [] when it is fine. */
function blockProblems(blocks: unknown, max: 50 | 100, prefix: PropertyKey[] = ['blocks']): string[] {
  const parsed = z.array(block).max(max, `no more than ${max} items allowed`).safeParse(blocks);
  if (!parsed.success) return issuesOf(parsed.error, prefix);
  const seen = new Set<string>();
  const problems: string[] = [];
  parsed.data.forEach((b, i) => {
    if (!b.block_id) return;
    if (seen.has(b.block_id)) {
      problems.push(
        `[ERROR] duplicate block_id ${b.block_id} [json-pointer:${pointer([...prefix, i, 'block_id'])}]`,
      );
    }
    seen.add(b.block_id);
  });
  return problems;
}

export class SlackRefusal extends Error {
  override name = 'SlackRefusal';
  readonly code = 'workbench_slack_refusal' as const;
  constructor(
    /** Slack's error name: invalid_blocks, expired_trigger_id, … */
    readonly error: string,
    readonly messages: string[] = [],
  ) {
    super(messages.length ? `${error}: ${messages.join('; ')}` : error);
  }
}

/** A message's text and blocks as Slack checks them (chat.postMessage/update/postEphemeral, response_url). */
export function checkMessage(message: { text?: unknown; blocks?: unknown }): void {
  const hasBlocks = Array.isArray(message.blocks) && message.blocks.length > 0;
  if (message.blocks !== undefined && !Array.isArray(message.blocks)) {
    throw new SlackRefusal('invalid_blocks_format', ['[ERROR] must be an array [json-pointer:/blocks]']);
  }
  if (typeof message.text === 'string' && message.text.length > 40_000)
    throw new SlackRefusal('msg_too_long');
  if (!hasBlocks && !(typeof message.text === 'string' && message.text.trim()))
    throw new SlackRefusal('no_text');
  if (hasBlocks) {
    const problems = blockProblems(message.blocks, 50);
    if (problems.length) throw new SlackRefusal('invalid_blocks', problems);
  }
}

const optionsResponse = z.looseObject({
  // No options is a search that found nothing.
  options: z.array(option).max(100, 'must have at most 100 options').optional(),
  option_groups: optionGroups.optional(),
});

/**
 * The options an app answers an external select's search with (block_suggestion): Slack shows none of
 * them when one breaks a limit (100 options, 75 characters of text, 150 of value).
 */
export function checkOptions(response: unknown): void {
  const parsed = optionsResponse.safeParse(response);
  if (!parsed.success) throw new SlackRefusal('invalid_options', issuesOf(parsed.error, []));
}

const modalView = z.looseObject({
  type: z.literal('modal'),
  title: plain(24),
  close: plain(24).optional(),
  submit: plain(24).optional(),
  callback_id: z.string().max(255).optional(),
  private_metadata: z.string().max(3000, 'must be at most 3000 characters').optional(),
  external_id: z.string().max(255).optional(),
  blocks: z.array(z.unknown()),
});
const homeView = z.looseObject({
  type: z.literal('home'),
  callback_id: z.string().max(255).optional(),
  private_metadata: z.string().max(3000).optional(),
  blocks: z.array(z.unknown()),
});

/** A view as views.open/update/push/publish (and response_action update/push) check it. */
export function checkView(view: unknown, kind: 'modal' | 'home'): void {
  const parsed = (kind === 'modal' ? modalView : homeView).safeParse(view);
  if (!parsed.success) throw new SlackRefusal('invalid_arguments', issuesOf(parsed.error, ['view']));
  const problems = blockProblems(parsed.data.blocks, 100, ['view', 'blocks']);
  if (
    kind === 'modal' &&
    !parsed.data.submit &&
    parsed.data.blocks.some((b) => (b as { type?: unknown }).type === 'input')
  ) {
    problems.push("[ERROR] submit is required when an 'input' block is present [json-pointer:/view/submit]");
  }
  if (problems.length) throw new SlackRefusal('invalid_arguments', problems);
}

// ---- trigger_id: 3 s, once ----

export const TRIGGER_LIFETIME_MS = 3_000;

/** trigger_ids handed out with interactions: each opens one view within 3 s of the click. */
export class Triggers {
  private readonly issued = new Map<string, { user: string; at: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  issue(user: string): string {
    const at = this.now();
    for (const [id, t] of this.issued) if (at - t.at > 60_000) this.issued.delete(id);
    const id = `${Math.floor(at / 1000)}.${at}.${randomBytes(8).toString('hex')}`;
    this.issued.set(id, { user, at });
    return id;
  }

  /** The user the trigger belongs to; refuses as Slack does. Used up on success. */
  use(id: unknown): string {
    if (typeof id !== 'string' || !id) throw new SlackRefusal('invalid_trigger_id');
    const trigger = this.issued.get(id);
    if (!trigger) throw new SlackRefusal('invalid_trigger_id');
    if (this.now() - trigger.at > TRIGGER_LIFETIME_MS) throw new SlackRefusal('expired_trigger_id');
    this.issued.delete(id);
    return trigger.user;
  }
}

// ---- posting rate: about 1 message a second per channel, a burst of 10 ----

export class PostingRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly perSecond = 1,
    private readonly burst = 10,
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined when the post may go; otherwise the seconds to wait (Retry-After). */
  take(channel: string): number | undefined {
    const now = this.now();
    const bucket = this.buckets.get(channel) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(channel, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}
