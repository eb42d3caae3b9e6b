// Who the approvals of a request are as people: a delegate and the approver whose place they took are
// one, the requester is none of them, and no assertion or passkey counts for two of them
// (approval-evidence.ts reports what these find).

/**
 * How many people the approvals are, a delegate and the approver they approved in the place of (as
 * `inPlaceOf` says; undefined: in their own right) counted as one, and each person counted more than
 * once, named once.
 */
export function countPeople(
  approvals: readonly string[],
  inPlaceOf: (user: string) => string | undefined,
): { people: number; problems: string[] } {
  const counted = new Set<string>();
  const twice = new Set<string>();
  let people = 0;
  for (const user of approvals) {
    const delegator = inPlaceOf(user);
    const persons = delegator ? [user, delegator] : [user];
    const again = persons.find((person) => counted.has(person));
    if (again) twice.add(again);
    else people += 1;
    for (const person of persons) counted.add(person);
  }
  const problems = [...twice].map((person) => {
    const delegate = approvals.find((user) => inPlaceOf(user) === person);
    const how = delegate ? ` (${delegate} approved in ${person}'s place)` : '';
    return `${person} is counted more than once among its approvals${how}`;
  });
  return { people, problems };
}

/** The requester's own approval among them, or one by a delegate in the requester's place. */
export function requesterProblems(
  approvals: readonly string[],
  inPlaceOf: (user: string) => string | undefined,
  requester: string,
): string[] {
  if (approvals.includes(requester)) return [`${requester} filed it and is counted among its approvals`];
  const delegate = approvals.find((user) => inPlaceOf(user) === requester);
  return delegate ? [`${delegate} approved in the place of ${requester}, who filed it`] : [];
}

const short = (id: string) => (id.length > 12 ? `${id.slice(0, 12)}…` : id);

/**
 * For one request's signatures in turn: why one repeats the nonce or the passkey of a signature before
 * it (one assertion, or one passkey, counted for two approvals); undefined when it does not.
 */
export function repeats(): (signature: {
  user: string;
  nonce: string;
  credentialId: string;
}) => string | undefined {
  const nonces = new Map<string, string>();
  const passkeys = new Map<string, string>();
  return ({ user, nonce, credentialId }) => {
    const sameNonce = nonces.get(nonce);
    const samePasskey = passkeys.get(credentialId);
    if (sameNonce === undefined) nonces.set(nonce, user);
    if (samePasskey === undefined) passkeys.set(credentialId, user);
    if (sameNonce !== undefined) return `repeats the nonce of ${sameNonce}'s (one assertion counted twice)`;
    if (samePasskey !== undefined) {
      return `is by passkey ${short(credentialId)}, as ${samePasskey}'s is (one passkey counted twice)`;
    }
    return undefined;
  };
}
