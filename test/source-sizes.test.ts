// The project's size rules, counted in raw lines: no .ts file under src/, test/ or bench/ is over 500 lines,
// and no function in src/ spans over 80 (from the line its code starts on to the line it ends on, as
// the TypeScript compiler sees it; the linter counts fewer). A function that only returns a table of
// data may be allowed, with its reason, below.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TypeScript from 'typescript';
import { describe, expect, it } from 'vitest';

// Required, not imported: an import of this CommonJS package first scans its 9 MB for named exports.
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

/** `path:name` of a function whose body only returns an array or object literal, and why it is long. */
const DATA_TABLES: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

interface FunctionSpan {
  name: string;
  lines: number;
  node: TypeScript.FunctionLikeDeclaration;
}

/** The name a function is known by: its own, or that of the variable, property or method it is assigned to. */
function functionName(
  node: TypeScript.FunctionLikeDeclaration,
  parent: TypeScript.Node,
  file: TypeScript.SourceFile,
): string {
  if (node.name) return node.name.getText(file);
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.initializer === node
  ) {
    return parent.name.getText(file);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  return `(anonymous function at line ${line})`;
}

/**
 * Every function with a body in the file (declarations, methods, accessors, arrows, expressions). A
 * file of MAX_FUNCTION_LINES lines or fewer holds none longer, so it is not parsed. The parse is the
 * test's cost: it skips what the spans do not need (JSDoc, links to parents).
 */
function functionSpans(path: string): FunctionSpan[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  if (lineCount(text) <= MAX_FUNCTION_LINES) return [];
  const file = ts.createSourceFile(path, text, {
    languageVersion: ts.ScriptTarget.Latest,
    jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
  });
  const spans: FunctionSpan[] = [];
  const visit = (node: TypeScript.Node, parent: TypeScript.Node): void => {
    // A type holds no function body, only function types (a class expression in `extends` is the
    // one expression a type node wraps).
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as TypeScript.FunctionLikeDeclaration;
      const start = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      spans.push({ name: functionName(fn, parent, file), lines: end - start + 1, node: fn });
    }
    ts.forEachChild(node, (child) => visit(child, node));
  };
  visit(file, file);
  return spans;
}

/** True when the function's body is nothing but the return of an array or object literal. */
function returnsOnlyATable(fn: TypeScript.FunctionLikeDeclaration): boolean {
  const isTable = (e: TypeScript.Expression): boolean => {
    const inner =
      ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)
        ? e.expression
        : e;
    return ts.isArrayLiteralExpression(inner) || ts.isObjectLiteralExpression(inner);
  };
  const body = fn.body;
  if (!body) return false;
  if (!ts.isBlock(body)) return isTable(body);
  const [only, ...rest] = body.statements;
  return (
    rest.length === 0 &&
    only !== undefined &&
    ts.isReturnStatement(only) &&
    !!only.expression &&
    isTable(only.expression)
  );
}

const SRC = sourceFiles('src');

describe('source sizes', () => {
  it(`keeps every file under src/, test/ and bench/ at ${MAX_FILE_LINES} lines or fewer`, () => {
    const over = [...SRC, ...sourceFiles('test'), ...sourceFiles('bench')]
      .map((path) => ({ path, lines: lineCount(readFileSync(join(ROOT, path), 'utf8')) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });

  it(`keeps every function in src/ at ${MAX_FUNCTION_LINES} lines or fewer`, () => {
    const over = SRC.flatMap((path) =>
      functionSpans(path)
        .filter((f) => f.lines > MAX_FUNCTION_LINES && !(`${path}:${f.name}` in DATA_TABLES))
        .map((f) => `${path}: ${f.name} spans ${f.lines} lines`),
    );
    expect(over).toEqual([]);
  });

  it('allows only long functions that return a table of data, each with its reason', () => {
    const wrong = Object.entries(DATA_TABLES).flatMap(([key, reason]) => {
      const [path = '', name] = key.split(':');
      const fn = SRC.includes(path) ? functionSpans(path).find((f) => f.name === name) : undefined;
      if (!fn) return [`${key}: no such function`];
      if (!returnsOnlyATable(fn.node)) return [`${key}: does more than return a table of data`];
      if (fn.lines <= MAX_FUNCTION_LINES) return [`${key}: no longer over ${MAX_FUNCTION_LINES} lines`];
      return reason.trim() === '' ? [`${key}: no reason given`] : [];
    });
    expect(wrong).toEqual([]);
  });
});
