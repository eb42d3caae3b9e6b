// The marks of signed heads of a shared store live in ./data, in a file named after the store's URL
// without its password, so that a password's rotation keeps them (docs/rotation.md#the-database-password):
// a new, empty marks file would have the next start trust whatever chain it finds.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditStateFiles } from '../../src/audit/location.js';

const marksOf = (storeUrl: string) => auditStateFiles(storeUrl)?.marksFile;

describe('the marks file of a shared store', () => {
  it('stays the same when a password in the userinfo is rotated', () => {
    expect(marksOf('postgres://desk:new-pass@db:5432/desk')).toBe(
      marksOf('postgres://desk:old-pass@db:5432/desk'),
    );
  });

  it('stays the same when a ?password= is rotated, and names no password', () => {
    const before = marksOf('postgres://desk@db:5432/desk?sslmode=require&password=old-pass');
    expect(marksOf('postgres://desk@db:5432/desk?sslmode=require&password=new-pass')).toBe(before);
    expect(marksOf('postgres://desk@db:5432/desk?sslmode=require&PASSWORD=other')).toBe(before);
  });

  it('stays the same when the password makes the URL unparseable (a / in it)', () => {
    expect(marksOf('redis://:new/pass#2@cache:6379')).toBe(marksOf('redis://:old/pass#1@cache:6379'));
    expect(marksOf('redis://:old/pass#1@cache:6379')).not.toBe(marksOf('redis://:old/pass#1@other:6379'));
  });

  it('keeps the name an install already has for the URLs that kept their marks before', () => {
    for (const [url, id] of [
      ['postgres://desk:old-pass@db:5432/desk', 'baee862c0dda'],
      ['redis://:s3cret@cache:6379/0', 'dde34a7eea7c'],
      ['postgres://desk@db:5432/desk?sslmode=require', 'af61aadff3c5'],
      ['rediss://default:pw@cache.example.com:6380', 'bc71e9ecf3a5'],
    ] as const) {
      expect(marksOf(url)).toBe(resolve(`./data/audit-heads-${id}.json`));
    }
  });
});
