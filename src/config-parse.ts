// A zod string checked by a parser of our own, shared by the configuration's files.
import { z } from 'zod';

/** A zod string that must pass a parser; the parser's message becomes the reason. */
export const parsedBy = <T>(parse: (text: string) => T) =>
  z.string().transform((text, ctx) => {
    try {
      return parse(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });
