// The parts of the bot stop in the reverse order of the list, every one of them even when one's stop
// fails: a Slack app that failed to stop must not keep the engine from releasing its leases.
import { expect, it } from 'vitest';
import { type Installed, stopInReverse } from '../../../src/slack/runtime/installed.js';

it('asks every part to stop, in reverse order, and throws the failure once all were asked', async () => {
  const stopped: string[] = [];
  const part = (name: string, fails = false): Installed => ({
    stop: async () => {
      stopped.push(name);
      if (fails) throw new Error(`${name} could not stop`);
    },
  });
  await expect(stopInReverse([part('engine'), { routes: [] }, part('slack', true)])).rejects.toThrow(
    'slack could not stop',
  );
  expect(stopped).toEqual(['slack', 'engine']);
});

it('names every failure when several parts fail to stop', async () => {
  const failing = (name: string): Installed => ({
    stop: () => {
      throw new Error(`${name} could not stop`);
    },
  });
  const stopping = stopInReverse([failing('engine'), failing('slack')]);
  await expect(stopping).rejects.toThrow(AggregateError);
  await expect(stopping).rejects.toMatchObject({
    errors: [new Error('slack could not stop'), new Error('engine could not stop')],
  });
});
