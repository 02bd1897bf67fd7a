#!/usr/bin/env python3
"""Checks what gate ships for Prometheus and Grafana (config/prometheus, config/grafana; issue 36).

- `promtool check rules` on the alerting rules, and `promtool test rules` on every fixture in
  config/prometheus/tests/ (Debian's `prometheus` package, scripts/install-deps.sh).
- Every alert has a fixture case where it fires and one where it does not (a case's
  `exp_alerts: []`), so a rule nobody exercised fails here rather than in production.
- Every dashboard is JSON with the datasource as the `DS_PROMETHEUS` input, and every query
  in it (panels' and variables') parses as PromQL: `promtool check rules` reads them as
  recording rules, Grafana's variables replaced by values.

That every series the dashboards and rules name exists in a live gate's and gate-hooks'
/metrics is checked against the real binaries by tests/js/monitoring.test.mjs, and that each
dashboard is one by Grafana's own model (@grafana/schema's types, strict; ids, layout, inputs,
variables) by tests/js/dashboards.test.mjs. Run from the repository's root; exit status 1 on
any failure (scripts/test.sh runs it).
"""
import glob
import json
import re
import subprocess
import sys
import tempfile

RULES = 'config/prometheus/gate-alerts.yml'
FIXTURES = sorted(glob.glob('config/prometheus/tests/*.yml'))
DASHBOARDS = sorted(glob.glob('config/grafana/*.json'))


def promtool(*args):
    r = subprocess.run(['promtool', *args], capture_output=True, text=True)
    if r.returncode != 0:
        print(f'promtool {" ".join(args)} failed:\n{r.stdout}{r.stderr}', file=sys.stderr)
    return r.returncode == 0


def alerts_in(path):
    with open(path) as f:
        return re.findall(r'^\s*- alert:\s*(\S+)\s*$', f.read(), re.M)


def cases_in(path):
    """(alertname, fires) for each alert_rule_test case: fires is False for `exp_alerts: []`."""
    with open(path) as f:
        text = f.read()
    found = re.findall(r'alertname:\s*(\S+)\s*\n\s*exp_alerts:[ \t]*(\[\])?', text)
    return [(name, empty != '[]') for name, empty in found]


def coverage_problems(alerts, cases):
    problems = []
    for a in alerts:
        for fires, what in ((True, 'fires'), (False, 'does not fire')):
            if (a, fires) not in cases:
                problems.append(f'{a}: no fixture case where it {what}')
    for name, _ in cases:
        if name not in alerts:
            problems.append(f'{name}: a fixture case of an alert the rules do not have')
    return problems


def dashboard_problems(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return [f'{path}: not JSON: {e}']
    inputs = [i.get('name') for i in d.get('__inputs', [])]
    if inputs != ['DS_PROMETHEUS']:
        return [f'{path}: __inputs should be the one DS_PROMETHEUS datasource, is {inputs}']
    return queries_parse(path, dashboard_queries(d))


# Grafana's variables as a query would see them once substituted.
GRAFANA_VARIABLES = {'$__rate_interval': '5m', '$__interval': '1m', '$__range': '1h',
                     '$job': '.*', '$instance': '.*', '$upstream': '.*'}


def dashboard_queries(d):
    """Every PromQL expression of a dashboard: its panels' targets and its query variables."""
    queries = [t['expr'] for p in d.get('panels', []) for t in p.get('targets', [])]
    for v in d.get('templating', {}).get('list', []):
        q = v.get('query', {})
        q = q.get('query', '') if isinstance(q, dict) else q
        m = re.fullmatch(r'label_values\((.*),\s*\w+\)', q)
        if m:
            queries.append(m.group(1))  # label_values(selector, label): its selector
    return queries


def queries_parse(path, queries):
    with tempfile.NamedTemporaryFile('w', suffix='.yml') as f:
        f.write('groups:\n  - name: dashboard\n    rules:\n')
        for i, q in enumerate(queries):
            for k, v in GRAFANA_VARIABLES.items():
                q = q.replace(k, v)
            f.write(f'      - record: dashboard:query{i}\n        expr: {json.dumps(q)}\n')
        f.flush()
        if promtool('check', 'rules', f.name):
            return []
        return [f'{path}: a query does not parse (promtool above)']


def main():
    ok = promtool('check', 'rules', RULES)
    ok = promtool('test', 'rules', *FIXTURES) and ok
    cases = [c for path in FIXTURES for c in cases_in(path)]
    problems = coverage_problems(alerts_in(RULES), cases)
    for path in DASHBOARDS:
        problems += dashboard_problems(path)
    if not DASHBOARDS:
        problems.append('no dashboard in config/grafana')
    for p in problems:
        print(f'check-monitoring: {p}', file=sys.stderr)
    if ok and not problems:
        print(f'check-monitoring: {len(alerts_in(RULES))} alerts, each seen firing and not '
              f'firing in {len(FIXTURES)} fixture files; {len(DASHBOARDS)} dashboards')
    return 0 if ok and not problems else 1


if __name__ == '__main__':
    sys.exit(main())
