// Times as the service or a webhook might write them: the signed forms the webhook intake reads (epoch
// digits), and texts no JavaScript Date reads, which every screen shows without breaking.
/** Texts a service could send for a time that `new Date` cannot read. */
export const UNREADABLE_TIMES = {
  /** A zone abbreviation after a space, where ISO wants `T` and an offset. */
  spaced: '2026-12-03 17:00:00 WAT',
  /** Day first, the way people in Lagos write dates. */
  dayFirst: '03/12/2026 10:00 WAT',
} as const;

/** `at` as epoch seconds written as digits, a form the intake reads as a signed time. */
export const epochSeconds = (at: Date): string => String(Math.floor(at.getTime() / 1000));
