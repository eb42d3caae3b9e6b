// Who the approvals of a request are as people: a delegate and the approver whose place they took are
// one, and the requester is none of them (approval-evidence.ts reports what these find).

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
