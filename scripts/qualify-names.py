#!/usr/bin/env python3
"""Qualifies names that moved to another namespace, in every file that uses them.

For a move of code between namespaces (actors/ to gate::actors, gateway/ to gate::gateway):
after the namespace lines of the moved files change, the files that name the moved code
unqualified no longer compile. This runs the compiler over every translation unit of a configured build
(`build/compile_commands.json`) with -fsyntax-only (no code generated: about four minutes
for the whole tree on two cores), then edits the sources:

1. A fix-it clang offers that qualifies the very name it reports (`x` to `ns::x`) is applied.
   A fix-it that corrects a typo to another name is not.
2. A name reported undeclared without such a fix-it (clang stops suggesting in templates
   and after its spelling-check limit) is qualified with `--prefix` at the reported column,
   when the folder given as `--declared-in` declares it (struct, class, enum, alias or a
   function at namespace scope) and it is not in `--never`.

Run it again until nothing is left to fix; what remains is for a person (a name that is a
local variable in one file and a moved type in another, an alias that hid the error).

    qualify-names.py --prefix actors:: --declared-in actors --skip policy [--build build]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIAGNOSTIC = re.compile(r'^\S+:\d+:\d+: (error|warning):')
SUGGESTION = re.compile(r"did you mean '([\w:]+)'\?")
FIX_IT = re.compile(r'fix-it:"([^"]+)":\{(\d+):(\d+)-(\d+):(\d+)\}:"([^"]*)"')
UNDECLARED = re.compile(
    r"^(\S+):(\d+):(\d+): error: (?:use of undeclared identifier|unknown type name|"
    r"no template named|unknown template name) '(\w+)'")


def syntax_check(build):
    """The diagnostics of every translation unit, compiled for syntax only."""
    commands = json.load(open(os.path.join(build, 'compile_commands.json')))
    seen, units = set(), []
    for c in commands:
        if c['file'] not in seen:
            seen.add(c['file'])
            units.append(c)

    def run(c):
        args, skip = [], False
        for a in shlex.split(c['command']):
            if skip:
                skip = False
            elif a in ('-o', '-MF', '-MT'):
                skip = True
            elif a not in ('-MD', '-c'):
                args.append(a)
        args += ['-fsyntax-only', '-ferror-limit=0', '-fdiagnostics-parseable-fixits',
                 '-fspell-checking-limit=100000']
        r = subprocess.run(args, cwd=c['directory'], capture_output=True, text=True,
                           errors='replace')
        return r.returncode, r.stderr

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(run, units))
    failed = sum(1 for rc, _ in results if rc)
    print(f'{len(units)} translation units, {failed} failed')
    return '\n'.join(err for _, err in results).split('\n')


def qualifying_fix_its(lines):
    """{file: {(line, column): (end column, replacement)}} for fix-its that only qualify."""
    fixes = collections.defaultdict(dict)
    suggested = None
    for line in lines:
        m = SUGGESTION.search(line)
        if m and DIAGNOSTIC.match(line):
            suggested = m.group(1)
            continue
        m = FIX_IT.match(line)
        if m and suggested:
            path, l1, c1, l2, c2, text = m.groups()
            if text == suggested and '::' in text and l1 == l2:
                fixes[path].setdefault((int(l1), int(c1)), (int(c2), text))
        elif DIAGNOSTIC.match(line):
            suggested = None
    return fixes


def declared_in(folder, skip, name):
    pattern = (r'(struct|class|using|enum class|enum)\s+' + name + r'\b|^\S.*\b' + name +
               r'\s*\(|constexpr.*\b' + name + r'\b')
    found = subprocess.run(['grep', '-rlE', pattern, folder, '--include=*.hpp'], cwd=ROOT,
                           capture_output=True, text=True).stdout.split()
    return any(not (skip and f.startswith(skip)) for f in found)


def undeclared_to_prefix(lines, args):
    """{file: {(line, column): name}} for undeclared names the folder declares."""
    hits = collections.defaultdict(dict)
    for line in lines:
        m = UNDECLARED.match(line)
        if m and not re.search(r"did you mean '[\w:]*" + re.escape(args.prefix), line):
            path, l, c, name = m.groups()
            hits[path][(int(l), int(c))] = name
    names = {n for h in hits.values() for n in h.values()} - set(args.never)
    known = {n for n in names if declared_in(args.declared_in, args.skip, n)}
    return {p: {k: n for k, n in h.items() if n in known} for p, h in hits.items()}


def edit(path, changes):
    """Applies {(line, column): (end column, text)} right to left; returns how many."""
    if not os.path.isabs(path):
        path = os.path.join(ROOT, path)
    if not path.startswith(ROOT + os.sep) or os.sep + 'build' in path[len(ROOT):]:
        return 0
    lines = open(path).read().split('\n')
    done = 0
    for (l, c1), (c2, text) in sorted(changes.items(), reverse=True):
        s = lines[l - 1].encode()
        old = s[c1 - 1:c2 - 1].decode()
        if not re.fullmatch(r'[A-Za-z_]\w*', old) or not text.endswith('::' + old):
            continue
        if s[:c1 - 1].decode().endswith('::'):
            continue
        lines[l - 1] = (s[:c1 - 1] + text.encode() + s[c2 - 1:]).decode()
        done += 1
    if done:
        open(path, 'w').write('\n'.join(lines))
    return done


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--build', default=os.path.join(ROOT, 'build'))
    p.add_argument('--prefix', required=True, help='what to write before a name: actors::')
    p.add_argument('--declared-in', required=True, help='the folder the moved code is in')
    p.add_argument('--skip', default='', help='a folder below it that did not move')
    p.add_argument('--never', nargs='*', default=['what', 'state', 'target', 'r'],
                   help='names never qualified (common words a message may report)')
    args = p.parse_args()
    lines = syntax_check(args.build)
    total = 0
    for path, fixes in qualifying_fix_its(lines).items():
        total += edit(path, fixes)
    for path, hits in undeclared_to_prefix(lines, args).items():
        total += edit(path, {k: (k[1] + len(n), args.prefix + n) for k, n in hits.items()})
    print(f'{total} names qualified')


if __name__ == '__main__':
    main()
