// The gate as the start-up wiring lists it: first of all listeners, so who may use what is checked
// before any other runs. It meets the workspace the start-up check named and makes the one directory
// of people the gate, the audit's names and the delegations share.
import type { Installed } from '../runtime/installed.js';
import { type Home, People } from '../runtime/people.js';
import { type GateDeps, registerGate } from './gate.js';

export interface GateInstall extends Omit<GateDeps, 'home' | 'people'> {
  /** Told of the workspace whose members may act, and of the directory of people, once the app exists. */
  met?: (home: Home, people: People) => void;
}

export function installGate(deps: GateInstall): Installed {
  const { met, ...gate } = deps;
  return {
    listeners: (app, identity) => {
      const home: Home = {
        teamId: identity.teamId,
        team: identity.team,
        enterpriseId: identity.enterpriseId,
      };
      const people = new People(app.client, { home });
      met?.(home, people);
      registerGate(app, { ...gate, people, home });
    },
  };
}
