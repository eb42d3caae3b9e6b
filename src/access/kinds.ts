// The kinds of request the desk knows. They sit here, at the bottom of the domain, because who may
// approve is settled per kind (roles, pools) and the audit log names the kind of each entry.

/** Every kind of request, in the order settings and lists show them; `RequestKind` is one of them. */
export const REQUEST_KINDS = [
  'withdraw',
  'redeem',
  'bridge',
  'whitelist',
  'settlement',
  'delegation',
  'unfreeze',
  'passkey',
] as const;

export type RequestKind = (typeof REQUEST_KINDS)[number];
