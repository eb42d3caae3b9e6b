// The password of STORE_URL is known in every form it may surface in, even when the URL does not
// parse (a bad port, a character not escaped): the logger and the store's own messages take it out.
import { describe, expect, it } from 'vitest';
import { scrubbed, urlPasswordForms } from '../../src/store/url-credentials.js';

describe('the password of a store URL', () => {
  it('is given as written and decoded', () => {
    expect(urlPasswordForms('postgres://desk:s%40cret@db:5432/desk')).toEqual(['s%40cret', 's@cret']);
    expect(urlPasswordForms('redis://:plain-secret@db:6379')).toEqual(['plain-secret']);
  });

  it('is also the password given as a query parameter (the PostgreSQL driver takes one there)', () => {
    expect(urlPasswordForms('postgres://desk@db:5432/desk?sslmode=require&password=s%40cret')).toEqual([
      's%40cret',
      's@cret',
    ]);
  });

  it('is read from the text when the URL does not parse', () => {
    expect(() => new URL('redis://desk:s3cretpass@localhost:99999')).toThrow();
    expect(urlPasswordForms('redis://desk:s3cretpass@localhost:99999')).toEqual(['s3cretpass']);
    expect(urlPasswordForms('redis://desk:s3cret%40pass@localhost:99999')).toEqual([
      's3cret%40pass',
      's3cret@pass',
    ]);
  });

  it('includes a part after a slash or an @ written unescaped, when the URL does not parse', () => {
    expect(urlPasswordForms('redis://desk:pa/ss@word@localhost:99999/0')).toEqual(
      expect.arrayContaining(['pa/ss@word']),
    );
    expect(urlPasswordForms('redis://desk:p@ss@localhost:99999')).toEqual(['p@ss']);
  });

  it('survives a % that does not decode, parsed or not', () => {
    expect(urlPasswordForms('redis://desk:pass%zzword@db:6379')).toEqual(['pass%zzword']);
    expect(urlPasswordForms('redis://desk:pass%zzword@db:99999')).toEqual(['pass%zzword']);
  });

  it('is nothing when the URL carries none', () => {
    expect(urlPasswordForms('redis://db:6379')).toEqual([]);
    expect(urlPasswordForms('redis://desk@db:99999')).toEqual([]);
    expect(urlPasswordForms('sqlite://./data/cngn-desk.sqlite')).toEqual([]);
    expect(urlPasswordForms('memory://')).toEqual([]);
  });
});

describe('a store error message, scrubbed', () => {
  it('names STORE_URL in place of the URL, and hides the password in every form', () => {
    const url = 'redis://desk:s3cret%40pass@localhost:99999';
    const error = new Error(`cannot read ${url}; AUTH s3cret@pass refused; s3cret%40pass`);
    const out = scrubbed(error, url);
    expect(out).toBe('cannot read STORE_URL; AUTH *** refused; ***');
  });

  it('takes a thrown value that is not an Error', () => {
    expect(scrubbed('down: s3cretpass', 'redis://:s3cretpass@db:6379')).toBe('down: ***');
    expect(scrubbed({ message: 'no s3cretpass' }, 'redis://:s3cretpass@db:6379')).toBe('no ***');
  });
});
