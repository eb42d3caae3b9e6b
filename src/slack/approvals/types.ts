export interface BankChoice {
  name: string;
  code: string;
}

export interface Click {
  user: string;
  channel: string | undefined;
  value: string;
  triggerId: string | undefined;
  /** The install (workspace) it came from, when the payload says. */
  team?: string | undefined;
}
