// A page of the transaction list is checked a slice at a time: the same transactions out as the page's
// schema gives, and a mismatch deep in the page named by its place in the answer.
import { expect, test } from 'vitest';
import { CngnResponseError } from '../../src/cngn/errors.js';
import { parseListInTurns } from '../../src/cngn/response.js';
import { transactionFrameSchema, transactionPageSchema, transactionSchema } from '../../src/cngn/schemas.js';

const ENDPOINT = 'GET /v1/api/transactions';
const listed = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    trx_ref: `ref-${i}`,
    amount: `${i}.5`,
    status: i % 2 ? null : 'completed',
  }));
const items = (frame: unknown[] | { data: unknown[] }) =>
  Array.isArray(frame) ? { list: frame, path: '' } : { list: frame.data, path: 'data.' };

test('checks a page of 1,000 in slices to what the page schema gives', async () => {
  const page = { data: listed(1_000), pagination: { count: 1_000, pages: 1, isLastPage: true } };
  const { frame, items: checked } = await parseListInTurns(
    { frame: transactionFrameSchema, item: transactionSchema },
    page,
    items,
    ENDPOINT,
  );
  const whole = transactionPageSchema.parse(page);
  expect(checked).toEqual(whole.data);
  expect(frame).toMatchObject({ pagination: whole.pagination });
});

test('names the offending field by its place in the page', async () => {
  const page = { data: listed(300) as Array<Record<string, unknown>> };
  (page.data[237] as Record<string, unknown>).trx_ref = 42;
  const checking = parseListInTurns(
    { frame: transactionFrameSchema, item: transactionSchema },
    page,
    items,
    ENDPOINT,
  );
  await expect(checking).rejects.toBeInstanceOf(CngnResponseError);
  await expect(checking).rejects.toThrow('unexpected response shape at data.237.trx_ref');
  const bare = parseListInTurns(
    { frame: transactionFrameSchema, item: transactionSchema },
    page.data,
    items,
    ENDPOINT,
  );
  await expect(bare).rejects.toThrow('unexpected response shape at 237.trx_ref');
});
