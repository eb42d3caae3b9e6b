// How deeply a parsed JSON value nests, counted without recursion: a body nested thousands deep parses
// fine but overflows the stack of whatever walks it later (JSON.stringify in the store, validators).

/** True when `value` nests arrays or objects more than `limit` levels deep (a scalar is depth 0). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop();
    if (!next || next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
    }
  }
  return false;
}
