// CSV cells: quoted where RFC 4180 needs it, and never read as a formula by a spreadsheet.
import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '../../src/format/csv.js';

describe('csvCell', () => {
  it('puts a quote mark before anything a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('+2348012345678')).toBe("'+2348012345678");
    expect(csvCell('-1+1')).toBe("'-1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
  });

  it('leaves ordinary text alone and quotes commas, quotes and line breaks', () => {
    expect(csvCell('1500.00')).toBe('1500.00');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(3)).toBe('3');
  });

  it('joins rows with CRLF', () => {
    expect(
      toCsv([
        ['a', 'b'],
        ['=1', 'x,y'],
      ]),
    ).toBe(`a,b\r\n'=1,"x,y"\r\n`);
  });
});
