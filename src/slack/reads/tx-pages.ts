// Next / Previous on the `/cngn tx` list: the same private message is replaced in place with the page
// the button carries, read after the ack.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { describeError } from '../runtime/errors.js';
import { afterAck, type InFlight } from '../runtime/in-flight.js';
import { postToResponseUrl } from '../runtime/response-url.js';
import type { ReadDeps, SlackMessage } from '../types.js';
import { errorMessage, withEnvironment } from '../ui/messages.js';
import { TX_PAGE_ACTIONS } from './blocks.js';
import { txPage } from './commands.js';

// The page a Next / Previous button carries; anything else (not a positive whole number) reads as 1.
const pageSchema = z
  .string()
  .regex(/^[1-9]\d{0,4}$/)
  .transform(Number)
  .catch(1);
const responseUrlSchema = z.url({ protocol: /^https?$/ });

export function registerTxPages(
  app: App,
  deps: Omit<ReadDeps, 'reports'> & { inFlight?: InFlight | undefined },
): void {
  // Next / Previous on the transaction list: the same private message is replaced in place.
  app.action<BlockAction<ButtonAction>>(TX_PAGE_ACTIONS, async ({ ack, action, body }) => {
    await ack();
    const page = pageSchema.parse(action.value);
    // The list is a private message: only its response_url can replace it.
    const target = responseUrlSchema.safeParse(body.response_url);
    if (!target.success) {
      deps.logger.warn('a transaction page click came without a response_url: nothing to update');
      return;
    }
    const work = async () => {
      let message: SlackMessage;
      try {
        message = await txPage(page, deps);
      } catch (error) {
        message = errorMessage(describeError(error, deps.logger, 'tx page').text);
      }
      await postToResponseUrl(target.data, {
        replace_original: true,
        ...withEnvironment(message, deps.api.environment),
      });
    };
    afterAck(deps.inFlight, work, deps.logger, 'tx page', body.trigger_id);
  });
}
