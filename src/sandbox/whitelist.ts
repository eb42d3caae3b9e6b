// Whitelisted withdrawal addresses, with the service's timelock between additions.
import { type NetworkRecord, networkView } from './catalog.js';
import { badRequest, type whitelistBody } from './rules.js';
import type { Body, SandboxState } from './state.js';

export function addWhitelist(state: SandboxState, body: Body<typeof whitelistBody>) {
  const network = state.networkById(body.networkId, 'networkId');
  const exists = state.whitelist.some(
    (w) => w.networkId === network.id && w.publicKey.toLowerCase() === body.address.toLowerCase(),
  );
  if (exists) throw badRequest(`Address is already whitelisted on ${network.name}`);
  const now = state.config.now();
  if (state.lastWhitelistAddAt !== undefined) {
    const opensAt = state.lastWhitelistAddAt + state.config.whitelistTimelockMs;
    if (now < opensAt) {
      throw badRequest(
        `Whitelist timelock active: another address can be added after ${new Date(opensAt).toISOString()}`,
      );
    }
  }
  state.appendWhitelist(network, body.address);
  state.lastWhitelistAddAt = now;
  return whitelistView(state, false);
}

export function whitelistView(state: SandboxState, includeNetwork: boolean) {
  return state.whitelist.map((entry) => {
    const network = state.networks.find((n) => n.id === entry.networkId);
    const view = networkView(network as NetworkRecord, false);
    return includeNetwork
      ? { ...entry, network: { id: view.id, name: view.name, short_name: view.short_name } }
      : { ...entry };
  });
}
