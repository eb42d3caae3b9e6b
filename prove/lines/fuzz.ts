// Fuzzing with fast-check: slash-command texts, modal submissions and webhook bodies sent signed to
// the real bot over HTTP, and service answers of the wrong shape read by the real client. Every input
// must be answered (a 2xx ack or a clear 4xx) within Slack's 3 s; none may crash the process, leave an
// unhandled rejection, or get the catch-all "something went wrong on our side". What the bot then sent
// Slack holds no raw hidden or bidi character from the inputs: each reaches Slack as its marker. Each
// command and submission also says which workspace it comes from (the payload's team, the acting
// user's team, an organisation): one from any other than the bot's own is only ever refused.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createCngnClient } from '../../src/cngn/client.js';
import { CngnError, CngnResponseError, CngnTransportError, RateBudgetError } from '../../src/cngn/errors.js';
import { Money } from '../../src/format/money.js';
import { hasHiddenCharacters } from '../../src/format/mrkdwn.js';
import { silentLogger } from '../../src/log.js';
import { signBody, startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { slackTexts } from '../../test/slack/builders/support.js';
import type { SlackCall } from '../../test/support/fake-slack.js';
import {
  HIDDEN_TEXT,
  isHomeWorkspace,
  OBJECT_MEMBER_NAMES,
  workspace,
} from '../../test/support/fuzz-inputs.js';
import { startHarness } from '../../test/support/harness.js';
import { slashCommand } from '../../test/support/slack-requests.js';
import { commandFrom, submissionFrom } from '../../test/support/workspaces.js';
import { inBatches, type Line, sleep } from '../support.js';
import { fuzzForeignInteractions } from './fuzz-interactions.js';

const ACK_MS = 3_000;
const CATCH_ALL = 'something went wrong on our side';

const WORDS = [
  'balance',
  'tx',
  'deposit',
  'withdraw',
  'redeem',
  'quote',
  'bridge',
  'accounts',
  'networks',
  'banks',
  'whitelist',
  'settlement',
  'pending',
  'audit',
  'resolve',
  'help',
  'verify',
  'add',
  'list',
  'cancel',
];
const NASTY = [
  '<!channel>',
  '<@U123>',
  '*bold*',
  '`x`',
  '&amp;',
  '=1+1',
  '%00',
  '\u202e',
  '💸',
  '\n',
  '  ',
  ...HIDDEN_TEXT,
];

const amount = fc.oneof(
  fc.double().map(String),
  fc.integer().map(String),
  fc.stringMatching(/^-?[0-9]{0,12}([.,][0-9]{0,8})?$/),
  fc.constantFrom(
    '1e9',
    '1e309',
    '1e+21',
    'NaN',
    'Infinity',
    '0',
    '-0',
    '-500',
    '0.001',
    '0.000000001',
    '999999999999999999999',
    '9'.repeat(400),
    '1,500.50',
  ),
);
const token = fc.oneof(
  fc.constantFrom(...WORDS),
  amount,
  fc.constantFrom(...NASTY),
  fc.constantFrom(...OBJECT_MEMBER_NAMES),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^0x[0-9a-fA-F]{0,44}$/),
  fc.stringMatching(/^[A-Z]{2,6}-[A-Z0-9-]{0,20}$/),
);
const commandText = fc.oneof(
  fc.array(token, { maxLength: 6 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const VIEWS = {
  'withdraw.submit': [
    'withdraw.amount',
    'withdraw.network',
    'withdraw.address',
    'withdraw.save',
    'withdraw.whitelisted',
    'withdraw.purpose',
  ],
  'redeem.submit': ['redeem.amount', 'redeem.bank', 'redeem.account', 'redeem.purpose'],
  'bridge.submit': [
    'bridge.amount',
    'bridge.origin',
    'bridge.destination',
    'bridge.address',
    'bridge.sender',
    'bridge.purpose',
  ],
  'whitelist.submit': ['whitelist.network', 'whitelist.address'],
  'settlement.submit': ['settlement.bank', 'settlement.account'],
  'deposit.submit': [
    'deposit.amount',
    'deposit.email',
    'deposit.customer_name',
    'deposit.account_name',
    'deposit.narration',
  ],
  'quote.submit': ['quote.amount', 'quote.origin', 'quote.destination', 'quote.address'],
  'approval.reject.submit': ['reject.reason'],
} as const;

const elementState = fc.oneof(
  fc.record({ type: fc.constant('plain_text_input'), value: fc.oneof(token, fc.constant(null)) }),
  fc.record({
    type: fc.constant('static_select'),
    selected_option: fc.oneof(
      fc.constant(null),
      fc.record({ value: token, text: fc.record({ type: fc.constant('plain_text'), text: token }) }),
    ),
  }),
  fc.record({
    type: fc.constant('checkboxes'),
    selected_options: fc.array(fc.record({ value: token }), { maxLength: 3 }),
  }),
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...OBJECT_MEMBER_NAMES)),
    fc.jsonValue({ maxDepth: 2 }),
    {
      maxKeys: 3,
    },
  ),
);

const modalSubmission = fc
  .constantFrom(...(Object.keys(VIEWS) as Array<keyof typeof VIEWS>))
  .chain((callbackId) =>
    fc.record({
      callbackId: fc.constant(callbackId as string),
      values: fc.dictionary(
        fc.oneof(
          fc.constantFrom(...VIEWS[callbackId]),
          fc.string({ maxLength: 12 }),
          fc.constantFrom(...OBJECT_MEMBER_NAMES),
        ),
        fc.oneof(
          elementState.map((state) => ({ [callbackId.split('.')[0] as string]: state })),
          fc.constantFrom(...VIEWS[callbackId]).chain((id) => elementState.map((state) => ({ [id]: state }))),
        ),
        { maxKeys: 6 },
      ),
      privateMetadata: fc.oneof(
        fc.string({ maxLength: 100 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc.constant(JSON.stringify({ networks: ['x'] })),
        fc
          .constantFrom(...OBJECT_MEMBER_NAMES)
          .map((name) => JSON.stringify({ networks: [name], families: { [name]: 'solana' } })),
      ),
    }),
  );

const EVENTS = ['transaction.completed', 'transaction.failed', 'deposit.received', 'withdrawal.completed'];
const webhookBody = fc.oneof(
  fc
    .record({
      event: fc.oneof(
        fc.constantFrom(...EVENTS),
        fc.constantFrom(...OBJECT_MEMBER_NAMES),
        fc.string({ maxLength: 30 }),
      ),
      data: fc.oneof(
        fc.record(
          {
            trx_ref: fc.oneof(
              fc.string({ maxLength: 30 }),
              fc.integer(),
              fc.constantFrom(...OBJECT_MEMBER_NAMES),
            ),
            amount: fc.oneof(amount, fc.double(), fc.integer()),
            status: fc.oneof(fc.constantFrom('completed', 'failed', 'pending'), fc.string({ maxLength: 10 })),
            trx_type: fc.oneof(
              fc.constantFrom('withdraw', 'fiat_redeem', 'crypto_deposit', ...OBJECT_MEMBER_NAMES),
              fc.string(),
            ),
            network: fc.oneof(fc.constantFrom('base', ...OBJECT_MEMBER_NAMES), fc.string({ maxLength: 10 })),
            receiver: fc.oneof(
              fc.jsonValue({ maxDepth: 2 }),
              fc.constantFrom(...HIDDEN_TEXT.map((name) => `058:0123456789:${name}`)),
              fc.record({
                bank: fc.record({ code: fc.constant('058'), name: fc.constantFrom(...HIDDEN_TEXT) }),
                accountNumber: fc.constant('0123456789'),
                accountName: fc.constantFrom(...HIDDEN_TEXT),
              }),
            ),
            reason: fc.oneof(fc.constantFrom(...HIDDEN_TEXT), fc.string({ maxLength: 40 })),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ maxLength: 200 }),
      ),
    })
    .map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 500 }),
);

/** Service answers of every wrong shape: JSON of any form, envelopes with odd data, non-JSON. */
const serviceAnswer = fc.oneof(
  fc
    .record(
      {
        status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.string({ maxLength: 5 }), fc.constant(null)),
        message: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
        data: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
);

interface Tally {
  sent: number;
  answered: number;
  serverErrors: number;
  slow: number;
  maxMs: number;
  failures: string[];
}

async function measure<T>(inputs: T[], send: (input: T) => Promise<number>): Promise<Tally> {
  const tally: Tally = { sent: 0, answered: 0, serverErrors: 0, slow: 0, maxMs: 0, failures: [] };
  await inBatches(inputs, 8, async (input) => {
    tally.sent += 1;
    const started = performance.now();
    let status: number;
    try {
      status = await send(input);
    } catch (error) {
      tally.failures.push(`no answer (${String(error)}) to ${JSON.stringify(input).slice(0, 120)}`);
      return;
    }
    const ms = performance.now() - started;
    tally.maxMs = Math.max(tally.maxMs, ms);
    if (ms > ACK_MS) tally.slow += 1;
    if (status >= 500 || status < 200) {
      tally.serverErrors += 1;
      tally.failures.push(`${status} to ${JSON.stringify(input).slice(0, 120)}`);
    } else tally.answered += 1;
  });
  return tally;
}

/** What a failed line says last: the seed, so the same inputs can be drawn again. */
export const seedNote = (seed: number) => `seed ${seed}: PROVE_SEED=${seed} repeats it`;

function lineOf(
  what: string,
  n: number,
  tally: Tally,
  catchAll: number,
  seed: number,
): Omit<Line, 'seconds'> {
  const ok = tally.answered === n && tally.slow === 0 && catchAll === 0;
  return {
    line: `fuzz: ${what}`,
    on: 'memory',
    target: `${n} answered 2xx/4xx within 3 s, 0 catch-all errors`,
    figure: `${tally.answered}/${n} answered, ${tally.serverErrors} 5xx, ${tally.slow} over 3 s (max ${Math.round(tally.maxMs)} ms), ${catchAll} catch-all`,
    status: ok ? 'pass' : 'fail',
    ...(ok
      ? {}
      : {
          note: `${tally.failures.slice(0, 2).join('; ') || `${catchAll} answers said "${CATCH_ALL}"`} (${seedNote(seed)})`,
        }),
  };
}

/**
 * Every text the bot sent Slack while it was fuzzed (messages, views, answers; mrkdwn and plain_text):
 * a hidden or bidi character from the input may reach Slack only as its marker (⟨U+202E⟩).
 */
function hiddenLine(calls: SlackCall[], seed: number): Omit<Line, 'seconds'> {
  let checked = 0;
  let marked = 0;
  const raw: string[] = [];
  for (const call of calls) {
    const { mrkdwn, plain } = slackTexts((call.body.view as unknown) ?? call.body);
    for (const text of [...mrkdwn, ...plain]) {
      checked += 1;
      if (/⟨U\+[0-9A-F]{4,6}⟩/.test(text)) marked += 1;
      if (hasHiddenCharacters(text)) raw.push(`${call.method}: ${JSON.stringify(text).slice(0, 120)}`);
    }
  }
  // Some texts must show a marker, or the inputs never reached Slack and nothing was proven.
  const ok = raw.length === 0 && marked > 0;
  return {
    line: 'fuzz: hidden characters',
    on: 'memory',
    target: 'no raw hidden or bidi character in any text sent to Slack, only markers',
    figure: `${checked} texts checked, ${marked} showing a marker, ${raw.length} with a raw hidden character`,
    status: ok ? 'pass' : 'fail',
    ...(ok ? {} : { note: `${raw.slice(0, 2).join('; ') || 'no marker shown'} (${seedNote(seed)})` }),
  };
}

/** A naira figure as the bot writes one: `₦1,500.00` (with a minus only for its own debits). */
const FIGURE = /^-?₦\d{1,3}(?:,\d{3})*\.\d{2}$/;

/**
 * Every naira figure in what the bot posted while webhook bodies of every shape came in: amounts such
 * as `1e309`, `NaN`, `-500`, `0.001` or 400 digits are never drawn as a figure (they ask for a person).
 */
function figuresLine(calls: SlackCall[], seed: number): Omit<Line, 'seconds'> {
  let figures = 0;
  const bad: string[] = [];
  for (const call of calls) {
    const { mrkdwn, plain } = slackTexts((call.body.view as unknown) ?? call.body);
    for (const text of [...mrkdwn, ...plain]) {
      for (const [figure] of text.matchAll(/-?₦[^\s`*_~|<>()[\]]*/g)) {
        figures += 1;
        // A figure ends the sentence it closes: `₦1,500.00.` or `₦1,500.00,` is still well formed.
        if (!FIGURE.test(figure.replace(/[.,;:!?]$/, ''))) bad.push(`${call.method}: ${figure.slice(0, 40)}`);
      }
    }
  }
  const ok = bad.length === 0;
  return {
    line: 'fuzz: webhook figures',
    on: 'memory',
    target:
      'every ₦ figure posted for a webhook is a well-formed amount; impossible amounts are never figures',
    figure: `${figures} figures checked, ${bad.length} malformed`,
    status: ok ? 'pass' : 'fail',
    ...(ok ? {} : { note: `${bad.slice(0, 3).join('; ')} (${seedNote(seed)})` }),
  };
}

/** What the gate says to anyone of another workspace, on a command and on a form's field. */
const MEMBERS_ONLY = 'Only members of Treasury can use cngn-desk.';

/**
 * Every command and submission drawn from another workspace was refused and nothing else: the command's
 * private answer is the refusal, the form's ack is the refusal on a field (or closes it with nothing done).
 */
function workspacesLine(
  foreign: { commands: Array<{ name: string }>; submissions: Array<{ ack: string }> },
  calls: SlackCall[],
  seed: number,
): Omit<Line, 'seconds'> {
  const wrong: string[] = [];
  for (const { name } of foreign.commands) {
    const answers = calls.filter((c) => c.method === `response_url:${name}`).map((c) => String(c.body.text));
    if (answers.length !== 1 || !answers[0]?.startsWith(MEMBERS_ONLY)) {
      wrong.push(`command ${name}: ${JSON.stringify(answers).slice(0, 120)}`);
    }
  }
  for (const { ack } of foreign.submissions) {
    if (
      !ack.includes(`Not allowed: ${MEMBERS_ONLY}`) &&
      ack !== JSON.stringify({ response_action: 'clear' })
    ) {
      wrong.push(`submission: ${ack.slice(0, 120)}`);
    }
  }
  const n = foreign.commands.length + foreign.submissions.length;
  const ok = wrong.length === 0 && n > 0;
  return {
    line: 'fuzz: other workspaces',
    on: 'memory',
    target: 'every command and form naming another team, user team or organisation is refused, nothing run',
    figure: `${n} drawn from another workspace, ${wrong.length} not refused`,
    status: ok ? 'pass' : 'fail',
    ...(ok ? {} : { note: `${wrong.slice(0, 2).join('; ') || 'none drawn'} (${seedNote(seed)})` }),
  };
}

/** Slash commands, modal submissions and webhook bodies through the bot; one line each, and what reached Slack. */
export async function fuzzBot(n: { commands: number; modals: number; webhooks: number }, seed: number) {
  const harness = await startHarness();
  const lines: Omit<Line, 'seconds'>[] = [];
  // Answers after the ack (response_url, DMs) keep coming for a moment: count once Slack is quiet.
  const quiet = async () => {
    let seen = -1;
    while (seen !== harness.slack.calls.length) {
      seen = harness.slack.calls.length;
      await sleep(300);
    }
  };
  const catchAll = () => harness.slack.calls.filter((c) => JSON.stringify(c.body).includes(CATCH_ALL)).length;
  try {
    const foreign = { commands: [] as Array<{ name: string }>, submissions: [] as Array<{ ack: string }> };
    const texts = fc.sample(fc.tuple(commandText, workspace), { numRuns: n.commands, seed });
    let before = catchAll();
    let tally = await measure([...texts.entries()], async ([i, [text, place]]) => {
      // A slash command names no user team: its team and organisation say where it comes from.
      const home = isHomeWorkspace({ ...place, userTeam: undefined });
      const name = home ? 'fuzz' : `fuzz-elsewhere-${i}`;
      if (!home) foreign.commands.push({ name });
      const r = await commandFrom(harness.sender, place, {
        text,
        user: 'UREQ',
        responseUrl: harness.slack.responseUrl(name),
      });
      return r.status;
    });
    await harness.bot.approvals?.engine.idle();
    await quiet();
    lines.push(lineOf('slash-command texts', n.commands, tally, catchAll() - before, seed));

    const modals = fc.sample(fc.tuple(modalSubmission, workspace), { numRuns: n.modals, seed });
    before = catchAll();
    tally = await measure(modals, async ([modal, place]) => {
      const r = await submissionFrom(harness.sender, place, {
        user: 'UREQ',
        callbackId: modal.callbackId,
        privateMetadata: modal.privateMetadata,
        values: modal.values as Record<string, Record<string, Record<string, unknown>>>,
      });
      if (!isHomeWorkspace(place)) foreign.submissions.push({ ack: r.body });
      return r.status;
    });
    await harness.bot.approvals?.engine.idle();
    await quiet();
    lines.push(lineOf('modal submissions', n.modals, tally, catchAll() - before, seed));
    lines.push(
      await fuzzForeignInteractions(harness.sender, () => harness.slack.calls, quiet, n.modals, seed),
    );

    const bodies = fc.sample(webhookBody, { numRuns: n.webhooks, seed });
    const webhooksFrom = harness.slack.calls.length;
    tally = await measure(bodies, async (body) => {
      // Half signed with the right secret (read and judged), half with a wrong one (refused).
      const secret = body.length % 2 ? harness.sandbox.webhookSecret : 'not-the-secret';
      const response = await fetch(`${harness.bot.url}/webhooks/cngn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cngn-signature': signBody(body, secret) },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    });
    lines.push(lineOf('webhook bodies', n.webhooks, tally, 0, seed));
    await quiet();
    lines.push(hiddenLine(harness.slack.calls, seed));
    lines.push(workspacesLine(foreign, harness.slack.calls, seed));
    lines.push(figuresLine(harness.slack.calls.slice(webhooksFrom), seed));
    // The process is still whole: an ordinary command is still answered.
    const alive = await slashCommand(harness.sender, {
      text: 'help',
      responseUrl: harness.slack.responseUrl('alive'),
    });
    if (alive.status !== 200) throw new Error(`the bot stopped answering after fuzzing (${alive.status})`);
  } finally {
    await harness.stop();
  }
  return lines;
}

/**
 * Service answers of the wrong shape, through the real client (reads and money POSTs alike): every
 * call ends in a typed error (unreadable answer, service error, transport) or a value its schema
 * accepted — never a TypeError, never a hang.
 */
export async function fuzzServiceAnswers(n: number, seed: number): Promise<Omit<Line, 'seconds'>> {
  const answers = fc.sample(
    fc.tuple(serviceAnswer, fc.constantFrom(200, 200, 200, 201, 400, 404, 422, 500)),
    { numRuns: n, seed },
  );
  let current = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [body, status] = answers[current % answers.length] as [string, number];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sandbox = await startSandbox({ rateLimit: false });
  const store = await createStore('memory://');
  const client = createCngnClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: sandbox.apiKey,
    encryptionKey: sandbox.encryptionKey,
    privateKey: sandbox.privateKey,
    store,
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    retry: { attempts: 1 },
    cacheTtlMs: { networks: 0, banks: 0, balance: 0 },
    logger: silentLogger,
  });
  const calls: Array<() => Promise<unknown>> = [
    () => client.getBalance({}),
    () => client.getNetworks({}),
    () => client.getBanks({}),
    () => client.getTransactions({ page: 1, limit: 10 }),
    () => client.getTransaction('CNGN-1'),
    () => client.getWhitelisted({}),
    () => client.getDedicatedAccounts({}),
    () => client.resolveAccount({ accountNumber: '0123456789', bankCode: '058' }),
    () => client.verifyWithdrawal('CNGN-1'),
    () =>
      client.withdraw({
        amount: Money.parseDecimal('10'),
        address: '0x52908400098527886E0F7030069857D2E4169EE7',
        networkId: 'base',
        shouldSaveAddress: false,
      }),
  ];
  const wrong: string[] = [];
  let typed = 0;
  let accepted = 0;
  let maxMs = 0;
  try {
    for (let i = 0; i < n; i++) {
      current = i;
      const started = performance.now();
      try {
        await (calls[i % calls.length] as () => Promise<unknown>)();
        accepted += 1;
      } catch (error) {
        const ok =
          error instanceof CngnResponseError ||
          error instanceof CngnError ||
          error instanceof CngnTransportError ||
          error instanceof RateBudgetError;
        if (ok) typed += 1;
        else wrong.push(`${String(error)} from ${answers[i]?.[1]} ${answers[i]?.[0].slice(0, 80)}`);
      }
      maxMs = Math.max(maxMs, performance.now() - started);
    }
  } finally {
    await client.close();
    await store.close();
    await sandbox.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  const ok = wrong.length === 0 && maxMs <= ACK_MS;
  return {
    line: 'fuzz: service answers of the wrong shape',
    on: 'real client',
    target: `${n} calls end in a typed error or a valid value, within 3 s`,
    figure: `${typed} typed errors, ${accepted} accepted, ${wrong.length} other (max ${Math.round(maxMs)} ms)`,
    status: ok ? 'pass' : 'fail',
    ...(ok ? {} : { note: `${wrong.slice(0, 2).join('; ') || 'too slow'} (${seedNote(seed)})` }),
  };
}
