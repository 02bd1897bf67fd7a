#!/usr/bin/env python3
"""Structural checks of the code, kept as a ratchet against a baseline.

These things are measured:

1. Import cycles between gateway/'s folders. An `#include "gateway/B/..."` in a file under
   gateway/A/ is an edge A->B (A->A is ignored). Reported: every pair of folders that include
   each other, every strongly connected component (SCC) of more than one folder, and every edge
   inside an SCC, each edge with one include as evidence (file:line). The edges are keys of
   their own so that a new include that deepens an existing knot fails too, not only one that
   makes a new knot.

2. Big classes: a class or struct in gateway/ (.hpp and .cpp, nested and local classes
   included) with more than 25 public data members or more than 20 public methods. A
   heuristic, not a parser (body_declarations, classify_member): at the top level of the class
   body it follows the access sections (a struct starts public, a class private) and classes
   each declaration.
   Data members: declarations that are not functions, types, using, typedef, friend or
   static_assert; `int a, b;` is two; static data members count. Methods: declarations or
   definitions with a parameter list, operators included, each overload once; constructors,
   destructors, friends and `= delete` do not count. A nested class's body is not the outer
   class's; the nested class is counted as a class of its own (`outer::inner`).

3. Namespaces that do not follow folders. The rule, per top folder:
     gateway/<sub>/...   gate::gateway::<sub> (or below it), or gate::gateway
     gateway/<file>      gate::gateway (or below it)
     actors/, protocol/, transport/, config/, shim/, hooks/, process/, policy/ (any depth)
                         gate::<folder> (or below it): actors/guards may be gate::actors or
                         gate::actors::guards, protocol/jose is gate::protocol::jose
   What is checked is each namespace that holds code directly (a `namespace gate {` that only
   wraps `namespace transport {` holds none). Anonymous namespaces and `detail` are
   transparent (their code is their parent's); a forward declaration (`struct document;`,
   `class RE2;`) is not code; code at global scope (main) is not checked; namespaces opened to
   specialize a library's templates (std, boost, caf) are allowed.
   gateway/ is in gate::gateway (docs/architecture.md, "Structure checks"); the baseline has
   no namespace entry.

4. The walk of a request (docs/architecture.md, "How one request flows"): every file it names
   (a backquoted path ending .cpp or .hpp) exists, and it names at most 20, so the path a
   reader follows stays short and true as the code moves.

5. Actor messages: no message type is exempted from CAF's inspection
   (CAF_ALLOW_UNSAFE_MESSAGE_TYPE): each is described and inspectable
   (actors/message_inspection.hpp). No baseline: any use fails.

6. The order of gateway/'s folders (GATEWAY_ORDER, top first): a folder includes only folders
   below it, so the dependency runs one way and no cycle can form. An include that points up,
   and a folder that has no place in the order, fail. No baseline: there are none.
The ratchet: scripts/structure-baseline.json holds today's violations. The check fails (exit 1)
on a violation not in the baseline and on a class whose count grew above its baseline number;
it prints what got better (a baseline entry gone or lowered) so it can be taken out of the
baseline. The baseline only shrinks: `--update-baseline` rewrites it without what got better
and refuses to add anything unless `--accept-new` is given too.

    check-structure.py                    the check (scripts/test.sh runs it)
    check-structure.py --report           every current violation and the counts; never fails
    check-structure.py --classes          every class found, with its counts (to check them)
    check-structure.py --update-baseline [--accept-new]
    check-structure.py --self-test        a small fake tree: each kind is caught, a clean one passes
"""
import argparse
import contextlib
import importlib.util
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BASELINE = os.path.join(HERE, 'structure-baseline.json')

# Comments, literals and preprocessor lines blanked the way check-sizes.py blanks them.
_spec = importlib.util.spec_from_file_location('check_sizes', os.path.join(HERE, 'check-sizes.py'))
_sizes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_sizes)
strip_comments_and_literals = _sizes.strip

GATEWAY = 'gateway'
NAMESPACE_FOLDERS = ['gateway', 'actors', 'protocol', 'transport', 'config', 'shim', 'hooks', 'process', 'policy']
# The order a request meets gateway/'s folders, top first, read from what implements what: the
# program wires everything; entry is the HTTP face and the endpoints that are not MCP's; the
# MCP methods implement the stages' narrow interfaces (call_services.hpp, s4_route.hpp) and
# auth implements stage 2's, so both sit above the pipeline; the pipeline drives the upstream
# side; fleet and operations (what every layer counts and records) are at the bottom.
GATEWAY_ORDER = ['program', 'entry', 'mcp', 'auth', 'accounts', 'pipeline', 'upstream', 'fleet',
                 'operations']
MAX_PUBLIC_DATA = 25
MAX_PUBLIC_METHODS = 20
# Namespaces a file may open to specialize a library's templates (std::hash, boost's traits).
LIBRARY_NAMESPACES = {'std', 'boost', 'caf'}
TRANSPARENT_NAMESPACES = {'', 'detail'}


def source_files(root, top):
    """Every .hpp and .cpp under root/top, as paths relative to root, in a stable order."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(('.hpp', '.cpp')):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return found


def read(root, path):
    with open(os.path.join(root, path), errors='replace') as f:
        return f.read()


# ---------------------------------------------------------------------------------------------
# 1. Cycles between gateway/'s folders

INCLUDE = re.compile(r'^\s*#\s*include\s*["<]gateway/([^/">]+)/')


def include_edges(root):
    """{(from folder, to folder): first include that makes the edge, as 'file:line'}."""
    edges = {}
    for path in source_files(root, GATEWAY):
        parts = path.split(os.sep)
        if len(parts) < 3:  # a file directly in gateway/ belongs to no folder
            continue
        source = parts[1]
        for number, line in enumerate(read(root, path).splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != source:
                edges.setdefault((source, m.group(1)), f'{path}:{number}')
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's algorithm: the SCCs of the graph, each a sorted list."""
    successors = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in successors.get(node, []):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return components


def cycle_violations(root):
    """{key: (None, evidence)} for each mutual pair, each SCC and each edge inside an SCC."""
    edges = include_edges(root)
    folders = {d for d in os.listdir(os.path.join(root, GATEWAY))
               if os.path.isdir(os.path.join(root, GATEWAY, d))}
    folders |= {n for edge in edges for n in edge}
    found = {}
    for a, b in sorted(edges):
        if a < b and (b, a) in edges:
            found[f'cycle: {a}<->{b}'] = (None, f'{edges[(a, b)]}, {edges[(b, a)]}')
    for component in strongly_connected(folders, edges):
        if len(component) < 2:
            continue
        inside = sorted(e for e in edges if e[0] in component and e[1] in component)
        found[f'cycle scc: {",".join(component)}'] = (None, f'{len(inside)} edges')
        for a, b in inside:
            found[f'cycle edge: {a}->{b}'] = (None, edges[(a, b)])
    return found


def order_violations(root, order=GATEWAY_ORDER):
    """{key: (None, evidence)} for each include that points up the order, and each folder of
    gateway/ that has no place in it."""
    place = {name: i for i, name in enumerate(order)}
    found = {}
    base = os.path.join(root, GATEWAY)
    folders = {d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d))}
    for folder in sorted(folders - set(place)):
        found[f'order: gateway/{folder}/ has no place in GATEWAY_ORDER'] = (None, ', '.join(order))
    for (a, b), evidence in sorted(include_edges(root).items()):
        if a in place and b in place and place[b] < place[a]:
            found[f'order: {a}->{b} points up'] = (None, evidence)
    return found


# ---------------------------------------------------------------------------------------------
# 2. Big classes

CLASS_HEAD = re.compile(
    r'\b(class|struct)\s+'
    r'(?:(?:\[\[.*?\]\]|alignas\s*\([^()]*\))\s*)*'   # attributes before the name
    r'([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*'     # the name, maybe qualified (gateway::impl)
    r'(<[^;{}]*?>)?\s*'                               # a specialization's arguments
    r'(?:final\b\s*)?'
    r'(?::(?!:)[^;{}]*)?\{')                          # bases, then the body
BODY_MARK = re.compile(r'[{};:]')
ACCESS_LABEL = re.compile(r'^(public|private|protected)$')
TYPE_DEFINITION = re.compile(r'^(class|struct|union|enum)\b')
NOT_A_MEMBER = re.compile(r'^(using|typedef|friend|static_assert|class|struct|union|enum|'
                          r'concept)\b')
# Parentheses before a declaration's name or parameters that are not its parameter list.
NON_PARAMETER_PARENS = {'decltype', 'alignas', 'sizeof', 'alignof', 'noexcept', 'explicit',
                        '__attribute__', 'requires'}
INIT_LIST_COLON = re.compile(r'(?<!:):(?!:)')


def brace_partners(text):
    """{index of a brace: index of its partner} for every balanced brace of the text."""
    partners, open_braces = {}, []
    for m in re.finditer(r'[{}]', text):
        if m.group() == '{':
            open_braces.append(m.start())
        elif open_braces:
            start = open_braces.pop()
            partners[start] = m.start()
            partners[m.start()] = start
    return partners


def squeeze(text):
    return ' '.join(text.split())


def without_template_prefix(decl):
    """A declaration without its leading `template <...>` and attributes."""
    decl = re.sub(r'\[\[.*?\]\]\s*', '', decl)
    while decl.startswith('template'):
        open_at = decl.find('<')
        if open_at < 0:
            break
        depth = 0
        for i in range(open_at, len(decl)):
            depth += {'<': 1, '>': -1}.get(decl[i], 0)
            if depth == 0:
                decl = decl[i + 1:].lstrip()
                break
        else:
            break
    return decl


def skip_parens(text, open_at):
    """The index after the parenthesis that closes the one at open_at."""
    depth = 0
    for i in range(open_at, len(text)):
        depth += {'(': 1, ')': -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return len(text)


def parameter_list_start(decl):
    """Where a member's parameter list opens, or -1 when the declaration is not a function.

    A `(` before any `=` or initializer brace, outside template arguments, that follows a name
    rather than decltype/alignas and is not a declarator's `(*name)`. Operators are functions
    whatever follows them.
    """
    op = re.search(r'\boperator\b', decl)
    if op:  # `operator()(`: the first parentheses are the operator's name
        skip = re.match(r'\s*\(\s*\)', decl[op.end():])
        return decl.find('(', op.end() + (skip.end() if skip else 0))
    angle, i = 0, 0
    while i < len(decl):
        c = decl[i]
        if c == '<':
            angle += 1
        elif c == '>' and angle > 0 and decl[i - 1] != '-':
            angle -= 1
        elif angle == 0 and c in '={':
            return -1
        elif angle == 0 and c == '(':
            word = re.search(r'(\w*)\s*$', decl[:i]).group(1)
            if word in NON_PARAMETER_PARENS:
                i = skip_parens(decl, i)
                continue
            if decl[i + 1:].lstrip().startswith(('*', '&', '^')):
                return -1  # `void (*callback)(int);`: a data member
            return i
        i += 1
    return -1


def opens_function_body(head):
    """Whether a `{` after `head` (at a class body's top level) opens a member function's body,
    rather than an initializer, a default argument or a nested type's body."""
    decl = without_template_prefix(head)
    if decl.count('(') != decl.count(')') or TYPE_DEFINITION.match(decl):
        return False  # inside a parameter list (a default argument's braces), or a nested type
    start = parameter_list_start(decl)
    if start < 0:
        return False
    after_parameters = decl[skip_parens(decl, start):]
    if INIT_LIST_COLON.search(after_parameters):
        # A constructor's initializer list: `a_{x}` is a member's brace, the body follows a
        # `)` or a `}`.
        return decl.rstrip().endswith((')', '}'))
    return True


def body_declarations(text, open_brace, partners, default_access):
    """(access, declaration) for each declaration at the top level of the class body whose
    `{` is at open_brace; brace groups inside a declaration collapsed to `{}`."""
    close = partners[open_brace]
    access, pieces, found = default_access, [], []
    pos = open_brace + 1
    while True:
        m = BODY_MARK.search(text, pos, close)
        if not m:
            break
        mark, at = m.group(), m.start()
        pieces.append(text[pos:at])
        pos = at + 1
        if mark == '{':
            head = squeeze(''.join(pieces))
            pos = partners.get(at, close) + 1
            if opens_function_body(head):
                found.append((access, head + ' {}'))
                pieces = []
            else:
                pieces.append('{}')
        elif mark == ';':
            found.append((access, squeeze(''.join(pieces))))
            pieces = []
        elif text.startswith('::', at):
            pieces.append('::')
            pos = at + 2
        elif ACCESS_LABEL.match(squeeze(''.join(pieces))):
            access, pieces = squeeze(''.join(pieces)), []
        else:
            pieces.append(':')
    return found


def top_level_commas(decl):
    depth = 0
    commas = 0
    for c in decl:
        if c in '(<{[':
            depth += 1
        elif c in ')>}]' and depth > 0:
            depth -= 1
        elif c == ',' and depth == 0:
            commas += 1
    return commas


def classify_member(decl, class_name):
    """('data', n), ('method', 1) or (None, 0) for one declaration of a class body."""
    decl = without_template_prefix(decl)
    if not decl or NOT_A_MEMBER.match(decl):
        return None, 0
    start = parameter_list_start(decl)
    if start < 0:
        return 'data', 1 + top_level_commas(decl)
    name = re.search(r'(~?\s*\w+)\s*$', decl[:start])
    if name and squeeze(name.group(1)).replace(' ', '') in (class_name, '~' + class_name):
        return None, 0  # a constructor or destructor
    if re.search(r'=\s*delete\s*$', decl):
        return None, 0
    return 'method', 1


def find_classes(text):
    """(kind, name, open brace index) for each class or struct definition in stripped text."""
    found = []
    for m in CLASS_HEAD.finditer(text):
        if re.search(r'\benum\s*$', text[:m.start()]):
            continue  # `enum class e {`
        found.append((m.group(1), re.sub(r'\s+', '', m.group(2)) + (m.group(3) or ''),
                      m.end() - 1))
    return found


def class_counts(root, path):
    """[(line, qualified name, public data members, public methods)] for the file's classes."""
    text = strip_comments_and_literals(read(root, path))
    partners = brace_partners(text)
    classes = [c for c in find_classes(text) if c[2] in partners]
    results = []
    for kind, name, open_brace in classes:
        outer = [n for _, n, o in classes if o < open_brace < partners[o]]
        qualified = '::'.join(outer + [name])
        simple = re.sub(r'<.*', '', name).split('::')[-1]
        data = methods = 0
        default = 'public' if kind == 'struct' else 'private'
        for access, decl in body_declarations(text, open_brace, partners, default):
            if access != 'public':
                continue
            what, n = classify_member(decl, simple)
            data += n if what == 'data' else 0
            methods += n if what == 'method' else 0
        results.append((text.count('\n', 0, open_brace) + 1, qualified, data, methods))
    return results


def all_class_counts(root):
    return [(path,) + c for path in source_files(root, GATEWAY) for c in class_counts(root, path)]


def class_violations(root):
    """{key: (count, evidence)} for each bound a class goes over."""
    found = {}
    for path, line, name, data, methods in all_class_counts(root):
        where = f'{path}:{line}'
        if data > MAX_PUBLIC_DATA:
            found[f'class {path}:{name} public-members'] = (data, where)
        if methods > MAX_PUBLIC_METHODS:
            found[f'class {path}:{name} public-methods'] = (methods, where)
    return found


# ---------------------------------------------------------------------------------------------
# 3. Namespaces that do not follow folders

# `struct document;`: naming another folder's type is not code in its namespace.
FORWARD_DECLARATION = re.compile(r'\b(?:template\s*<[^;{}]*>\s*)?(?:class|struct|union)\s+\w+\s*;')
NAMESPACE_TOKEN = re.compile(
    r'(?P<opens>\b(?:inline\s+)?namespace\b\s*(?P<name>[A-Za-z_][\w:]*)?\s*\{)|[{}]|[^\s{}]+')


def namespaces_holding_code(text):
    """The namespaces (as 'a::b') in which the stripped text declares something directly;
    anonymous and `detail` namespaces count as their parent, forward declarations as nothing."""
    text = FORWARD_DECLARATION.sub(lambda m: ' ' * len(m.group()), text)
    opened_namespace = [False]  # per open brace: whether it opened a namespace
    current = [()]  # per open brace: the namespace its code belongs to
    holding = set()
    for m in NAMESPACE_TOKEN.finditer(text):
        token = m.group()
        if m.group('opens'):
            names = (m.group('name') or '').split('::')
            current.append(current[-1] + tuple(n for n in names if n not in TRANSPARENT_NAMESPACES))
            opened_namespace.append(True)
        elif token == '{':
            current.append(current[-1])
            opened_namespace.append(False)
        elif token == '}':
            if len(current) > 1:
                current.pop()
                opened_namespace.pop()
        elif opened_namespace[-1] and current[-1]:
            holding.add('::'.join(current[-1]))
    return holding


def expected_namespace(path):
    """(home, also): the file's code belongs in `home` or a namespace below it, or exactly in
    `also` (None: nowhere else)."""
    parts = path.split(os.sep)
    top = parts[0]
    if top == GATEWAY and len(parts) > 2:
        return f'gate::gateway::{parts[1]}', 'gate::gateway'
    return f'gate::{top}', None


def namespace_allowed(path, namespace):
    if namespace.split('::')[0] in LIBRARY_NAMESPACES:
        return True
    home, also = expected_namespace(path)
    return namespace == also or namespace == home or namespace.startswith(home + '::')


def namespace_violations(root):
    """{key: (None, what the file should use)} for each namespace not of the file's folder."""
    found = {}
    for top in NAMESPACE_FOLDERS:
        for path in source_files(root, top):
            text = strip_comments_and_literals(read(root, path))
            for namespace in sorted(namespaces_holding_code(text)):
                if not namespace_allowed(path, namespace):
                    found[f'namespace {path} {namespace}'] = (
                        None, f'expected {expected_namespace(path)[0]}')
    return found


# ---------------------------------------------------------------------------------------------
# The walk of a request in docs/architecture.md

WALK_DOC = 'docs/architecture.md'
WALK_HEADING = '## How one request flows'
WALK_MAX_FILES = 20


def walk_violations(root):
    """A file the walk names that does not exist, and a walk naming more than 20 files."""
    path = os.path.join(root, WALK_DOC)
    if not os.path.exists(path):
        return {}
    text = read(root, WALK_DOC)
    start = text.find(WALK_HEADING)
    if start < 0:
        return {f'walk {WALK_DOC} heading missing': (1, WALK_HEADING)}
    end = text.find('\n## ', start + len(WALK_HEADING))
    section = text[start:end if end >= 0 else len(text)]
    named = sorted(set(re.findall(r'`([\w./-]+/[\w.-]+\.(?:cpp|hpp))`', section)))
    found = {}
    for name in named:
        if not os.path.exists(os.path.join(root, name)):
            found[f'walk names a missing file: {name}'] = (1, WALK_DOC)
    if len(named) > WALK_MAX_FILES:
        found[f'walk names over {WALK_MAX_FILES} files'] = (len(named), ', '.join(named))
    return found


# ---------------------------------------------------------------------------------------------
# 5. Actor messages are inspectable (actors/message_inspection.hpp): none is exempted

UNSAFE_MESSAGE = re.compile(r'\bCAF_ALLOW_UNSAFE_MESSAGE_TYPE\b|\ballowed_unsafe_message_type\b')
MESSAGE_FOLDERS = ['actors', 'gateway', 'transport', 'hooks', 'shim', 'simulations', 'tests']


def unsafe_message_violations(root):
    """Each use of CAF's exemption from inspection, with its file and line."""
    found = {}
    for top in MESSAGE_FOLDERS:
        for path in source_files(root, top):
            text = strip_comments_and_literals(read(root, path))
            for number, line in enumerate(text.splitlines(), 1):
                if UNSAFE_MESSAGE.search(line):
                    found[f'unsafe message {path}:{number}'] = (1, line.strip())
    return found


# ---------------------------------------------------------------------------------------------
# The ratchet

def current_violations(root):
    found = {}
    found.update(cycle_violations(root))
    found.update(class_violations(root))
    found.update(namespace_violations(root))
    return found


def category(key):
    return re.match(r'\w+', key).group()  # cycle, class, namespace


def load_baseline(path):
    """{key: count or None}."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        saved = json.load(f)
    baseline = {key: None for key in saved.get('cycles', []) + saved.get('namespaces', [])}
    baseline.update(saved.get('classes', {}))
    return baseline


def save_baseline(path, entries):
    saved = {
        'about': 'Structural violations the code had when each was accepted '
                 '(scripts/check-structure.py). Only remove or lower entries.',
        'cycles': sorted(k for k in entries if category(k) == 'cycle'),
        'classes': {k: entries[k] for k in sorted(entries) if category(k) == 'class'},
        'namespaces': sorted(k for k in entries if category(k) == 'namespace'),
    }
    with open(path, 'w') as f:
        json.dump(saved, f, indent=2)
        f.write('\n')


def compare(baseline, current):
    """(worse, better): keys of `current` beyond the baseline (new, or a count above its
    number), and keys of the baseline gone or lowered."""
    worse = [k for k, (count, _) in current.items()
             if k not in baseline or (count is not None and count > (baseline[k] or 0))]
    better = [k for k, count in baseline.items()
              if k not in current or (count is not None and current[k][0] < count)]
    return sorted(worse), sorted(better)


def shown(key, count):
    return key if count is None else f'{key} {count}'


def print_state(current):
    for name in ('cycle', 'class', 'namespace'):
        keys = sorted(k for k in current if category(k) == name)
        print(f'{name}: {len(keys)}')
        for k in keys:
            count, evidence = current[k]
            print(f'  {shown(k, count)}  ({evidence})')
    by_folder = {}
    for k in current:
        if category(k) == 'namespace':
            folder = os.path.dirname(k.split()[1])
            by_folder[folder] = by_folder.get(folder, 0) + 1
    print('namespace violations per folder: ' +
          ', '.join(f'{f} {n}' for f, n in sorted(by_folder.items())))


def updated_baseline(baseline, current, accept_new):
    """The baseline without what got better; with accept_new, also with what got worse."""
    if accept_new:
        return {k: count for k, (count, _) in current.items()}
    kept = {}
    for k, count in baseline.items():
        if k in current:
            now = current[k][0]
            kept[k] = None if count is None else min(count, now)
    return kept


def print_changes(worse, better, baseline, current, where, accepting):
    for k in worse:
        count, evidence = current[k]
        was = f' (baseline {baseline[k]})' if k in baseline else ''
        print(f'{"accepted" if accepting else "new"}: {shown(k, count)}{was}  ({evidence})')
    for k in better:
        now = f'now {current[k][0]}' if k in current else 'gone'
        print(f'better: {shown(k, baseline[k])}, {now}: take it out of {where} '
              f'(--update-baseline)')


def print_summary(current, worse):
    counts = {name: sum(1 for k in current if category(k) == name)
              for name in ('cycle', 'class', 'namespace')}
    print(f'structure: {counts["cycle"]} cycle entries, {counts["class"]} big-class entries, '
          f'{counts["namespace"]} namespace entries; {len(worse)} beyond the baseline',
          file=sys.stderr)


def run_check(root, baseline_path, update=False, accept_new=False, order=GATEWAY_ORDER):
    """The ratchet: 1 when something is beyond the baseline (and not accepted), else 0."""
    current = current_violations(root)
    baseline = load_baseline(baseline_path)
    worse, better = compare(baseline, current)
    where = os.path.relpath(baseline_path, root)
    accepting = update and accept_new
    print_changes(worse, better, baseline, current, where, accepting)
    if update:
        save_baseline(baseline_path, updated_baseline(baseline, current, accept_new))
        refused = '' if accepting or not worse else '; the new violations not added (--accept-new)'
        print(f'wrote {where}{refused}')
    print_summary(current, worse)
    # The walk has no baseline: it is short and true, or the check fails.
    walk = walk_violations(root)
    for key, (count, evidence) in sorted(walk.items()):
        print(f'{key} ({count}: {evidence})', file=sys.stderr)
    if walk:
        print(f'structure check failed: the walk in {WALK_DOC} (docs/architecture.md, '
              '"Structure checks")', file=sys.stderr)
        return 1
    # Nor do unsafe messages: every one is described (actors/message_inspection.hpp).
    unsafe = unsafe_message_violations(root)
    for key, (_, evidence) in sorted(unsafe.items()):
        print(f'{key}: {evidence}', file=sys.stderr)
    if unsafe:
        print('structure check failed: a message exempted from inspection; describe it instead '
              '(actors/message_inspection.hpp)', file=sys.stderr)
        return 1
    # Nor does the order: an include that points up is a cycle on its way.
    order = order_violations(root, order) if order else {}
    for key, (_, evidence) in sorted(order.items()):
        print(f'{key}: {evidence}', file=sys.stderr)
    if order:
        print(f'structure check failed: gateway/\'s folders include only folders below them '
              f'({" > ".join(GATEWAY_ORDER)}; docs/architecture.md, "Structure checks")',
              file=sys.stderr)
        return 1
    if worse and not accepting:
        print('structure check failed: fix what is new above (docs/architecture.md, '
              '"Structure checks")', file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# Self-test

def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)


def fake_class(name, data_members, methods, kind='struct'):
    """A class with the given numbers of public data members and methods, among things that
    must not count: a constructor with an initializer list, a destructor, a deleted copy, a
    nested struct's members, private members, types, a friend, a lambda initializer."""
    lines = [f'{kind} {name} final : base {{', 'public:' if kind == 'class' else '',
             f'    explicit {name}(int x) : first_{{x}}, second_(x) {{ if (x) {{ run(); }} }}',
             f'    ~{name}();', f'    {name}(const {name}&) = delete;',
             '    using id = int;', '    friend bool operator==(const a&, const a&) = default;',
             '    struct nested { int n0; int n1; void nested_method(); };',
             '    enum class mode : int { on, off };']
    lines += [f'    std::map<int, std::vector<int>> m{i} = {{}};' for i in range(data_members)]
    lines += [f'    void f{i}(std::function<void(int)> cb = [](int) {{}}) const;'
              for i in range(methods - 1)]
    if methods:
        lines.append('    bool operator<(const thing& o) const { return a < o.a; }')
    lines += ['private:', '    int first_;', '    int second_;', '    void hidden();', '};']
    return '\n'.join(lines) + '\n'


def fake_tree(dirty):
    """A gateway/ with two folders; dirty adds a cycle, two big classes and a wrong namespace."""
    a = ('#include "gateway/b/b.hpp"\n'
         'namespace gate::config { struct document; }\n'  # a forward declaration: no code
         'namespace gate::gateway::a {\n' + fake_class('wide', 26 if dirty else 25, 3) +
         fake_class('busy', 1, 21 if dirty else 20, kind='class') + '}\n')
    b_body = 'namespace {\nint helper();\n}\nstruct small { int x; };\n'
    if dirty:
        b = '#include "gateway/a/a.hpp"\nnamespace gate::transport {\n' + b_body + '}\n'
    else:  # nested, the outer one holding no code of its own
        b = 'namespace gate {\nnamespace gateway::b {\n' + b_body + '}\n}\n'

    files = {'gateway/a/a.hpp': a, 'gateway/b/b.hpp': b,
             'actors/guards/g.hpp': 'namespace gate::actors::guards { int g(); }\n',
             'protocol/p.cpp': 'namespace std { template <> struct hash<x> {}; }\n'
                               'namespace gate { namespace protocol { int p(); } }\n',
             'transport/t.cpp': 'namespace detail { int u(); }\n'
                                'namespace gate::transport::detail { int t(); }\n'
                                'int main() { return 0; }\n'}
    # The walk: the clean tree's names files that exist; the dirty one's 21, one of them gone.
    walked = [f'gateway/a/a.hpp'] + [f'gateway/w/w{i}.cpp' for i in range(19 + dirty)]
    for name in walked[1:]:
        files[name] = 'namespace gate::gateway::w { int w(); }\n'
    if dirty:
        walked.append('gateway/w/gone.cpp')
    files[WALK_DOC] = ('# Architecture\n\n' + WALK_HEADING + '\n\n' +
                       ''.join(f'{i}. `{n}`\n' for i, n in enumerate(walked)) +
                       '\n## Next\n\n`gateway/w/later.cpp` is not the walk\'s\n')
    if dirty:  # an exempted message
        files['actors/m.hpp'] = 'namespace gate::actors { struct m {}; }\nCAF_ALLOW_UNSAFE_MESSAGE_TYPE(gate::actors::m)\n'
    else:  # named in a comment only
        files['actors/m.hpp'] = '// not CAF_ALLOW_UNSAFE_MESSAGE_TYPE\nnamespace gate::actors { struct m {}; }\n'
    if dirty:  # a longer cycle, c -> d -> e -> c
        for src, dst in (('c', 'd'), ('d', 'e'), ('e', 'c')):
            files[f'gateway/{src}/{src}.cpp'] = (f'#include "gateway/{dst}/{dst}.hpp"\n'
                                                 f'namespace gate::gateway::{src} {{ int f(); }}\n')
    return files


EXPECTED_IN_DIRTY_TREE = {
    'cycle: a<->b', 'cycle scc: a,b', 'cycle edge: a->b', 'cycle edge: b->a',
    'cycle scc: c,d,e', 'cycle edge: c->d', 'cycle edge: d->e', 'cycle edge: e->c',
    'class gateway/a/a.hpp:wide public-members',
    'class gateway/a/a.hpp:busy public-methods',
    'namespace gateway/b/b.hpp gate::transport',
}
EXPECTED_ORDER_IN_DIRTY_TREE = {  # b->a points up, c->d does not; e has no place
    'order: b->a points up', 'order: gateway/e/ has no place in GATEWAY_ORDER',
}
EXPECTED_WALK_IN_DIRTY_TREE = {
    'walk names a missing file: gateway/w/gone.cpp', 'walk names over 20 files',
}


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as clean, tempfile.TemporaryDirectory() as dirty:
        write_tree(clean, fake_tree(dirty=False))
        write_tree(dirty, fake_tree(dirty=True))
        found_clean = current_violations(clean)
        found_dirty = current_violations(dirty)
        counts = {name: (d, m) for _, _, name, d, m in all_class_counts(clean)}
        if counts.get('wide') != (25, 3) or counts.get('busy') != (1, 20) or \
                counts.get('wide::nested') != (2, 1):
            failures.append(f'class counts in the clean tree: {counts}')
        if found_clean:
            failures.append(f'the clean tree has violations: {sorted(found_clean)}')
        if set(found_dirty) != EXPECTED_IN_DIRTY_TREE:
            missed = sorted(EXPECTED_IN_DIRTY_TREE - set(found_dirty))
            unexpected = sorted(set(found_dirty) - EXPECTED_IN_DIRTY_TREE)
            failures.append(f'the dirty tree: missed {missed}, unexpected {unexpected}')
        if walk_violations(clean):
            failures.append(f'the clean tree\'s walk: {sorted(walk_violations(clean))}')
        if set(walk_violations(dirty)) != EXPECTED_WALK_IN_DIRTY_TREE:
            failures.append(f'the dirty tree\'s walk: {sorted(walk_violations(dirty))}')
        if unsafe_message_violations(clean) or \
                set(unsafe_message_violations(dirty)) != {'unsafe message actors/m.hpp:2'}:
            failures.append(f'unsafe messages: {sorted(unsafe_message_violations(dirty))}')
        if order_violations(clean, ['a', 'b', 'w']):
            failures.append(f'the clean tree\'s order: {sorted(order_violations(clean, ["a", "b", "w"]))}')
        got = set(order_violations(dirty, ['a', 'b', 'c', 'd', 'w']))
        if got != EXPECTED_ORDER_IN_DIRTY_TREE:
            failures.append(f'the dirty tree\'s order: {sorted(got)}')
        failures += ratchet_failures(dirty, found_dirty)
    for f in failures:
        print(f'self-test: {f}')
    verdict = 'failed' if failures else 'each violation caught, the clean tree passes'
    print(f'self-test: {verdict}')
    return 1 if failures else 0


def ratchet_failures(root, found):
    """The ratchet over the dirty tree: its own baseline passes; a class above its baseline
    number or a violation not listed fails; --update-baseline drops a stale entry and adds
    nothing, unless --accept-new."""
    failures = []
    os.remove(os.path.join(root, WALK_DOC))  # the walk has no baseline: checked above
    os.remove(os.path.join(root, 'actors', 'm.hpp'))  # nor have unsafe messages
    path = os.path.join(root, 'baseline.json')
    exact = {k: count for k, (count, _) in found.items()}
    save_baseline(path, exact)
    with open(os.devnull, 'w') as quiet, contextlib.redirect_stdout(quiet), \
            contextlib.redirect_stderr(quiet):
        if run_check(root, path, order=None) != 0:  # the order has no baseline: checked above
            failures.append('the dirty tree fails against its own baseline')
        behind = dict(exact)
        behind['class gateway/a/a.hpp:wide public-members'] = 25
        del behind['namespace gateway/b/b.hpp gate::transport']
        save_baseline(path, dict(behind, **{'namespace gateway/b/gone.cpp gate': None}))
        if run_check(root, path, order=None) != 1:
            failures.append('a grown class or a new namespace violation passes')
        run_check(root, path, update=True, order=None)
        if load_baseline(path) != behind:
            failures.append('--update-baseline kept a stale entry or added a new one')
        run_check(root, path, update=True, accept_new=True, order=None)
        if load_baseline(path) != exact:
            failures.append('--update-baseline --accept-new did not take the tree as it is')
    return failures


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--report', action='store_true', help='print every violation; never fail')
    parser.add_argument('--classes', action='store_true', help='print every class with its counts')
    parser.add_argument('--update-baseline', action='store_true')
    parser.add_argument('--accept-new', action='store_true')
    parser.add_argument('--self-test', action='store_true')
    args = parser.parse_args()
    if args.accept_new and not args.update_baseline:
        parser.error('--accept-new goes with --update-baseline')
    if args.self_test:
        return self_test()
    if args.classes:
        for path, line, name, data, methods in all_class_counts(ROOT):
            print(f'{data:3} data {methods:3} methods  {path}:{line} {name}')
        return 0
    if args.report:
        print_state(current_violations(ROOT))
        return 0
    return run_check(ROOT, BASELINE, update=args.update_baseline, accept_new=args.accept_new)


if __name__ == '__main__':
    sys.exit(main())
