// Slack honours a trigger_id for 3 seconds. A form whose data comes from the service (networks,
// whitelist, banks) is opened at once as a "loading" modal, then replaced in place (by view id and
// hash) when the data arrives — or with the error in plain words. A slow service only delays the form.
import type { KnownBlock, ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { clipMrkdwn, clipPlain, escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';

// The two views are drawn here, not with ui/: runtime/ is the bottom of slack/ and knows no feature's words.
const sectionOf = (mrkdwn: string): KnownBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: clipMrkdwn(mrkdwn) },
});
const context = (mrkdwn: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clipMrkdwn(mrkdwn) }],
});

/** Slack refuses a modal's title or button text longer than 24 characters. */
const plainText = (text: string) => ({ type: 'plain_text' as const, text: clipPlain(text, 24) });

/** The modal opened at once (Slack's trigger_id lives 3 s) while the form's data is read. */
export function loadingView(environment: string): ModalView {
  return {
    type: 'modal',
    title: plainText('One moment'),
    close: plainText('Cancel'),
    blocks: [sectionOf(':hourglass_flowing_sand: Loading the form…'), context(escapeMrkdwn(environment))],
  };
}

/** The loading modal, replaced when the form's data could not be read; `text` is mrkdwn (describeError's). */
export function formErrorView(text: string, environment: string): ModalView {
  return {
    type: 'modal',
    title: plainText('Could not open the form'),
    close: plainText('Close'),
    blocks: [sectionOf(`:warning: ${text}`), context(escapeMrkdwn(environment))],
  };
}

export interface ModalWhileLoading {
  client: WebClient;
  triggerId: string;
  /** The environment marker, shown while loading and on an error. */
  environment: string;
  /** Reads what the form needs and builds it. */
  build(): Promise<ModalView>;
  /** The plain sentence for an error while building. */
  describe(error: unknown): string;
  log?: Pick<Logger, 'warn'> | undefined;
}

/** False when Slack refused to open the modal (expired trigger): the caller says so privately. */
export async function openModalWhileLoading(modal: ModalWhileLoading): Promise<boolean> {
  let opened: Awaited<ReturnType<WebClient['views']['open']>>;
  try {
    opened = await modal.client.views.open({
      trigger_id: modal.triggerId,
      view: loadingView(modal.environment),
    });
  } catch (error) {
    modal.log?.warn('views.open failed', { error: String(error) });
    return false;
  }
  let view: ModalView;
  try {
    view = await modal.build();
  } catch (error) {
    view = formErrorView(modal.describe(error), modal.environment);
  }
  const id = opened.view?.id;
  if (!id) {
    modal.log?.warn('views.open answered without a view id; the form cannot be shown');
    return true;
  }
  try {
    await modal.client.views.update({
      view_id: id,
      ...(opened.view?.hash ? { hash: opened.view.hash } : {}),
      view,
    });
  } catch (error) {
    // Closed by the user meanwhile, or changed elsewhere (hash): nothing left to show it in.
    modal.log?.warn('views.update of a loading modal failed', { error: String(error) });
  }
  return true;
}
