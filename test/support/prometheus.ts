// Scraping `GET /metrics` as Prometheus does and reading the text exposition format back: each
// `# TYPE` line, and each sample line `name{label="value",…} number`, strictly (a line that does not
// parse fails the test, as it would fail the scrape).
import { request } from 'undici';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  status: number;
  contentType: string;
  types: Map<string, string>;
  samples: Sample[];
  /** The sample of `name` whose labels include all of `labels`; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The samples of `name` (all label sets). */
  series(name: string): Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

export function parseExposition(text: string): Pick<Scrape, 'types' | 'samples'> {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice('# TYPE '.length).split(' ');
      if (!name || !type) throw new Error(`bad TYPE line: ${line}`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name = '', rawLabels = '', rawValue = ''] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let label = LABEL.exec(rawLabels); label; label = LABEL.exec(rawLabels)) {
      labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
      consumed = LABEL.lastIndex;
    }
    if (consumed !== rawLabels.length) throw new Error(`bad labels: ${line}`);
    samples.push({ name, labels, value: numberOf(rawValue, line) });
  }
  return { types, samples };
}

/** A sample's value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case). */
function numberOf(text: string, line: string): number {
  if (/^nan$/i.test(text)) return Number.NaN;
  if (/^[+-]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value)) throw new Error(`bad value: ${line}`);
  return value;
}

export async function scrape(url: string): Promise<Scrape> {
  const response = await request(url);
  const text = await response.body.text();
  const { types, samples } = parseExposition(text);
  const matches = (sample: Sample, labels: Record<string, string>) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type'] ?? ''),
    types,
    samples,
    value: (name, labels = {}) => samples.find((s) => s.name === name && matches(s, labels))?.value,
    series: (name) => samples.filter((s) => s.name === name),
  };
}
