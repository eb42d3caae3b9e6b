// What each kind of request carries out once approved: the body sent to the service, or for a
// delegation or an unfreeze what is written to the store. Plain data, stored with the request.

/** The exact plain bodies the service will receive; amounts are canonical decimal strings. */
interface WithdrawPayload {
  amount: string;
  address: string;
  networkId: string;
  shouldSaveAddress: boolean;
}

interface RedeemPayload {
  amount: string;
  bankCode: string;
  accountNumber: string;
}

/** The bridge body carries no amount: the quoted amount is sent on-chain to the deposit address. */
interface BridgePayload {
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
  senderAddress?: string;
  callbackUrl?: string;
}

interface WhitelistPayload {
  networkId: string;
  address: string;
}

interface SettlementPayload {
  bankName: string;
  bankAccountName: string;
  bankAccountNumber: string;
}

/**
 * An approver (`delegator`) lets `delegate` approve in their place until `until`, for requests of at
 * most `max` ₦ when a cap is given. Takes effect once approved by another approver; written to the
 * store (not sent to the service) when executed.
 */
export interface DelegationPayload {
  delegator: string;
  delegate: string;
  /** ISO instant the delegation ends. */
  until: string;
  /** Canonical decimal ₦ cap per request; absent: no cap. */
  max?: string;
}

/**
 * Lift the freeze of sends that `frozenBy` put in place at `frozenAt` (see freeze.ts). Approved by an
 * approver other than the one who froze; executed by clearing the freeze in the store, nothing sent.
 */
export interface UnfreezePayload {
  frozenBy: string;
  /** ISO instant of the freeze it lifts: it lifts that freeze only. */
  frozenAt: string;
  reason: string;
}

/**
 * Register `user`'s passkey (a WebAuthn credential their browser made, verified when filed). Takes
 * effect once another approver approves; written to the passkey book (not sent to the service) when
 * executed. Binary values are base64url text.
 */
interface PasskeyPayload {
  /** The Slack user it belongs to (the requester). */
  user: string;
  /** What its owner called it ("Bola's MacBook"). */
  name: string;
  credentialId: string;
  /** The COSE public key. */
  publicKey: string;
  /** The authenticator's signature counter at registration. */
  counter: number;
  aaguid?: string;
  transports?: string[];
}

export type PayloadOf = {
  withdraw: WithdrawPayload;
  redeem: RedeemPayload;
  bridge: BridgePayload;
  whitelist: WhitelistPayload;
  settlement: SettlementPayload;
  delegation: DelegationPayload;
  unfreeze: UnfreezePayload;
  passkey: PasskeyPayload;
};
