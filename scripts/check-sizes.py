#!/usr/bin/env python3
"""Lists C++ functions longer than a bound (default 80 lines), and files over 600 lines (issue 33).

A heuristic brace counter, not a parser: comments, string literals and preprocessor lines are
blanked, then each `{` outside a function body is classed as a scope (namespace, class), a
function body, or another block (an initializer). A function is counted from the first line of
its declaration (its signature, a constructor's initializer list) to its closing brace; brace
groups inside a declaration (a constructor's `a_{x}`, a default argument's `{}`) belong to it.
Lambdas and local classes count toward the function that holds them. Run from the repository's
root; tests/ and build*/ are left out, and so are files of generated text (GENERATED: a page
held as one literal). Exit status 1 when anything is over its bound (scripts/test.sh runs it).
"""
import os
import re
import subprocess
import sys

bound = int(os.environ.get('GATE_FUNCTION_LINES', '80'))
file_bound = int(os.environ.get('GATE_FILE_LINES', '600'))
# Text, not code, held as one literal in a tracked file: none now (the gate-hooks console's
# page, script and style are compiled in from hooks/console/ by CMake, like gate's console).
GENERATED = set()


def blank(s):
    return ''.join(ch if ch == '\n' else ' ' for ch in s)


def strip(text):
    """Comments, string and character literals and preprocessor lines blanked, newlines kept."""
    out = []
    i = 0
    n = len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            j = i
            while True:  # a directive, with its backslash-continued lines
                k = text.find('\n', j)
                k = n if k < 0 else k
                if k > 0 and text[k - 1] == '\\' and k < n:
                    j = k + 1
                    continue
                break
            out.append(blank(text[i:k]))
            i = k
            continue
        if c == '\n':
            line_start = True
        elif not c.isspace():
            line_start = False
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
            i = j
        elif re.match(r'(u8|u|U|L)?R"', text[i:i + 4]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'(?:u8|u|U|L)?R"([^(]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
            out.append(' ')  # a digit separator (1'000), not a character literal
            i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(blank(text[i:j + 1]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


SCOPE = re.compile(r'\b(namespace|class|struct|union|enum)\b[^()]*$|^extern$'
                   r'|^(template\s*<.*>\s*)?(class|struct|union)\s+\w+\s*(final\s*)?(:|$)')
# A declaration's end before a body: `)` then qualifiers, a trailing return type, or a
# constructor's initializer list (whose brace groups have been collapsed to `{}`).
FUNCTION = re.compile(r'\)\s*(const|noexcept|override|final|mutable|&&?|->[^;{}]*|\s)*(:[^;]*)?$')
CONTROL = re.compile(r'\b(if|for|while|switch|catch|else|do|try)\b')
ACCESS = re.compile(r'^\s*(public|private|protected)\s*:(?!:)')
NAME = re.compile(r'(operator\s*(\(\)|[^\s(]+)|~?[A-Za-z_][\w:<>,~ ]*?)\s*\(')


def is_function(head):
    h = ' '.join(head.split())
    if h.count('(') != h.count(')'):  # within an argument list: `f({`, an initializer
        return False
    if not FUNCTION.search(h):
        return False
    before_paren = re.sub(r'\boperator\s*\S+?\s*\(', 'operator(', h).split('(')[0]
    if '=' in before_paren:  # an initializer: `auto f = [](...) {`
        return False
    return not CONTROL.match(h)


def name_of(head):
    h = ' '.join(head.split())
    h = re.sub(r'^template\s*<[^()]*?>\s*', '', h)
    m = NAME.search(h)
    return (m.group(1).split()[-1] if m else h[:60]) + '(...)'


def function_spans(path):
    """Every function of `path` that no other holds: (first line, last line, name, classes), its
    classes the names of the classes around it, outermost first."""
    text = strip(open(path, errors='replace').read())
    stack = []  # (kind, start_line, name)
    line = 1
    head = []  # the text of the declaration being read, brace groups collapsed to {}
    head_line = None  # the line of its first character
    inner = 0  # depth of brace groups inside that declaration
    spans = []
    for c in text:
        in_fn = any(k == 'fn' for k, _, _ in stack)
        if c == '\n':
            line += 1
            if not in_fn and inner == 0:
                head.append(' ')
            continue
        if in_fn:
            if c == '{':
                stack.append(('block', line, ''))
            elif c == '}':
                kind, start, name = stack.pop()
                if kind == 'fn':
                    classes = [n for k, _, n in stack if k == 'scope' and n]
                    spans.append((start, line, name, classes))
                    head, head_line = [], None
            continue
        if inner > 0:  # inside a brace group of a declaration (an initializer)
            if c == '{':
                inner += 1
            elif c == '}':
                inner -= 1
                if inner == 0:
                    head.append('}')
            continue
        if c == '{':
            h = ''.join(head)
            if SCOPE.search(' '.join(h.split())) and not FUNCTION.search(' '.join(h.split())):
                named = re.search(r'\b(?:class|struct|union)\s+(\w+)', h)
                stack.append(('scope', line, named.group(1) if named else ''))
                head, head_line = [], None
            elif is_function(h):
                stack.append(('fn', head_line or line, name_of(h)))
            else:
                inner = 1
                head.append('{')
        elif c == '}':
            if stack:
                stack.pop()
            head, head_line = [], None
        elif c == ';':
            head, head_line = [], None
        else:
            if head_line is None and not c.isspace():
                head_line = line
            head.append(c)
            if c == ':' and ACCESS.match(''.join(head)):
                head, head_line = [], None
    return spans


def functions(path):
    return [(end - start + 1, path, start, name) for start, end, name, _ in function_spans(path)
            if end - start + 1 > bound]


def main():
    files = [f for f in subprocess.run(['git', 'ls-files', '*.cpp', '*.hpp'], capture_output=True,
                                       text=True).stdout.split()
             if not f.startswith(('tests/', 'build')) and 'node_modules' not in f
             and f not in GENERATED and os.path.exists(f)]  # a file deleted but still in the index
    found = []
    for f in files:
        found += functions(f)
    for n, p, l, name in sorted(found, reverse=True):
        print(f'{n:5} {p}:{l} {name}')
    big = [(n, f) for n, f in ((sum(1 for _ in open(f)), f) for f in files) if n > file_bound]
    for n, f in sorted(big, reverse=True):
        print(f'file {n:5} {f}')
    print(f'{len(found)} functions over {bound} lines, {len(big)} files over {file_bound}',
          file=sys.stderr)
    sys.exit(1 if found or big else 0)


if __name__ == '__main__':
    main()
