// `/cngn report [today|yesterday|7d|30d|YYYY-MM]`: the treasury report for a period, sent privately to
// the person who asked. The answer says at once that it is coming; the report is built, drawn and
// delivered to their DM after that, and a failure is told there in one sentence.
import { untilAborted } from '../../cngn/abort.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import { READ_LIMIT_MS } from '../../reports/build.js';
import { PERIOD_USAGE, parsePeriod } from '../../reports/period.js';
import type { ReportPeriod } from '../../reports/types.js';
import { afterAck } from '../runtime/in-flight.js';
import type { ReadDeps, ReportDeps } from '../types.js';
import { type CommandContext, READERS, type SlackMessage, type Subcommand } from '../types.js';
import { errorMessage, noticeMessage } from '../ui/messages.js';
import { chartOf, deliverReport, failureSentence } from './delivery.js';

/** Reads wait for the service's request budget (a few minutes all told, READ_LIMIT_MS) rather than fail: no promise of half a minute. */
const ARRIVES =
  "usually within half a minute; longer, up to several minutes, when the service's request budget is busy";

/**
 * The on-demand build's cut: past it (or once the bot stops) no further read of the service is made
 * and the DM says the report could not be made. The reads end a minute sooner (READ_LIMIT_MS, the
 * build's own deadline), so a busy budget gives a report said to be cut short rather than none.
 */
const BUILD_LIMIT_MS = READ_LIMIT_MS + 60_000;

function buildCut(deps: ReportDeps): AbortSignal {
  const cut = AbortSignal.timeout(BUILD_LIMIT_MS);
  return deps.stopping ? AbortSignal.any([cut, deps.stopping]) : cut;
}

const NOT_SET_UP = 'Reports are not set up in this deployment; nothing was sent.';

async function deliverToPerson(
  command: CommandContext,
  period: ReportPeriod,
  deps: ReportDeps,
): Promise<void> {
  let dm: string | undefined;
  try {
    dm = (await command.client.conversations.open({ users: command.userId })).channel?.id;
  } catch (error) {
    deps.logger.warn('the DM for a report could not be opened', { error: String(error) });
  }
  if (!dm) {
    // No DM to tell it in: the command's private answer says it instead.
    const text = `Your report for ${escapeMrkdwn(period.label)} could not be sent: Slack did not open a direct message with you. The app needs the \`im:write\` scope.`;
    return command.respond(errorMessage(text));
  }
  try {
    const signal = buildCut(deps);
    const report = await untilAborted(deps.source.build(period, { signal }), signal);
    const chart = await chartOf(report, deps.source);
    await deliverReport(deps.client, dm, report, chart, { madeAt: deps.now() });
  } catch (error) {
    const text = failureSentence(error, period.label, deps.logger);
    await command.client.chat.postMessage({ channel: dm, ...errorMessage(text) });
  }
}

async function reportCommand(command: CommandContext, deps: ReadDeps): Promise<SlackMessage | undefined> {
  const reports = deps.reports;
  if (!reports) return noticeMessage(NOT_SET_UP);
  if (command.args.length > 1) return errorMessage(`The ${PERIOD_USAGE}, one word.`);
  const period = parsePeriod(command.args[0], reports.now());
  if ('error' in period) return errorMessage(period.error);
  await command.respond(
    noticeMessage(
      `Preparing your report for *${escapeMrkdwn(period.label)}*… it will arrive in your DM, ${ARRIVES}.`,
    ),
  );
  afterAck(
    reports.inFlight,
    () => deliverToPerson(command, period, reports),
    reports.logger,
    '/cngn report',
    command.triggerId,
  );
  return undefined;
}

export const REPORT_SUBCOMMAND: Subcommand<ReadDeps> = {
  name: 'report',
  usage: 'report [today|yesterday|7d|30d|YYYY-MM]',
  summary: 'the treasury report (chart, summary, CSV) for a period, sent to you in a DM; default 7d',
  who: READERS,
  example: 'report 30d',
  run: reportCommand,
};
