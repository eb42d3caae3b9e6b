// When sends are frozen or resume: the approvals channel is told, and every open request's message,
// its DM copies and every opened App Home are rendered again with (or without) the banner. Runs on the
// replica that stored the change, after it was stored and audited; the other replicas read the freeze
// from the store at each rendering, so what they show next is current too.
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine, FreezeChange } from '../../approvals/index.js';
import type { Logger } from '../../log.js';
import type { SlackMessage } from '../types.js';
import { chainHeldAlert, frozenAnnouncement, liftedAnnouncement } from '../ui/freeze.js';

/** A surface that shows requests and renders them again when sends are frozen or resume. */
interface ShowsFreeze {
  freezeChanged(): Promise<void>;
}

/**
 * What is rendered again on a freeze change, as the approvals feature offers it (the wiring connects
 * them): the requests' channel messages, their DM copies, and every opened App Home.
 */
export interface FreezeSurfaces {
  presenter?: ShowsFreeze | undefined;
  dms?: ShowsFreeze | undefined;
  home?: { everyoneChanged(): Promise<void> } | undefined;
}

function announcement(change: FreezeChange): SlackMessage {
  if ('heldByChain' in change) return chainHeldAlert(change.heldByChain);
  if ('frozen' in change) return frozenAnnouncement(change.frozen, change.underway);
  return liftedAnnouncement(change.lifted, change.by, change.requestId);
}

export function tellFreeze(
  engine: ApprovalEngine,
  client: WebClient,
  approvalsChannel: string,
  surfaces: () => FreezeSurfaces,
  log?: Pick<Logger, 'warn'>,
): void {
  engine.onFreezeChange(async (change) => {
    const message = announcement(change);
    const { presenter, dms, home } = surfaces();
    const said = client.chat
      .postMessage({ channel: approvalsChannel, ...message })
      .catch((error: unknown) => {
        log?.warn('could not tell the approvals channel of the freeze', { error: String(error) });
      });
    await Promise.all([said, presenter?.freezeChanged(), dms?.freezeChanged(), home?.everyoneChanged()]);
  });
}
