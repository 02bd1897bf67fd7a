// The Grafana dashboards gate ships (config/grafana; issue 36) read as Grafana's own dashboard
// model: each is type-checked, strict, against @grafana/schema's Dashboard, Panel and
// RowPanel and each panel plugin's Options and FieldConfig (lib/dashboard-types.mjs), and
// held to what those types cannot say: unique panel ids, a layout inside the 24 columns
// without overlaps, datasources from the DS_PROMETHEUS input, declared variables, a
// schemaVersion Grafana 10 to 12 reads (lib/dashboard-rules.mjs). No Grafana server can be
// installed here (none in Debian 12 or on npm), so no live import: this is the reference it is
// checked against instead (docs/operations.md, Dashboards and alerts). Each check is seen to
// fail on a mutated copy, with a message that names the dashboard and the panel.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { ruleProblems } from './lib/dashboard-rules.mjs';
import { PANEL_SCHEMAS, typeProblems } from './lib/dashboard-types.mjs';
import { REPO_ROOT } from './lib/paths.mjs';

const DASHBOARDS = ['config/grafana/gate.json', 'config/grafana/gate-hooks.json'];
const shipped = DASHBOARDS.map((name) => ({ name, dashboard: JSON.parse(readFileSync(path.join(REPO_ROOT, name), 'utf8')) }));
const GATE = 'config/grafana/gate.json';
const gate = () => structuredClone(shipped[0].dashboard);
const panel = (d, id) => d.panels.flatMap((p) => [p, ...(p.panels ?? [])]).find((p) => p.id === id);

describe('the shipped dashboards', () => {
  test('are every file in config/grafana', () => {
    const files = readdirSync(path.join(REPO_ROOT, 'config/grafana')).filter((f) => f.endsWith('.json'));
    assert.deepEqual(files.map((f) => `config/grafana/${f}`).sort(), [...DASHBOARDS].sort());
  });

  test("type-check, strict, as @grafana/schema's Dashboard and each panel type's Panel", () => {
    const problems = typeProblems(shipped);
    for (const { name } of shipped) assert.deepEqual(problems.get(name), [], name);
  });

  test('every panel type the check knows has its Options (and FieldConfig) in @grafana/schema', () => {
    const panels = Object.keys(PANEL_SCHEMAS).map((type, i) => ({ type, id: i + 1, gridPos: { h: 1, w: 1, x: i, y: 0 } }));
    const name = 'one panel of each type';
    assert.deepEqual(typeProblems([{ name, dashboard: { schemaVersion: 42, panels } }]).get(name), []);
  });

  test('have unique ids, a layout in 24 columns, their datasource input, declared variables', () => {
    for (const { name, dashboard } of shipped) assert.deepEqual(ruleProblems(name, dashboard), [], name);
  });
});

// Each: a mutation of gate.json and what its message must say (after the dashboard's name).
const TYPE_MUTATIONS = [
  ['a field of the wrong type', (d) => { panel(d, 11).fieldConfig.defaults.custom.lineWidth = '1'; },
    /^panel 11 "Requests by outcome": fieldConfig\.defaults\.custom\.lineWidth: Type 'string' is not assignable to type 'number'/],
  ['an option the panel does not have', (d) => { panel(d, 11).options.legend.placment = 'bottom'; },
    /^panel 11 "Requests by outcome": options\.legend\.placment: Object literal may only specify known properties/],
  ['a value not of its enum', (d) => { panel(d, 2).options.colorMode = 'bg'; },
    /^panel 2 "Requests": options\.colorMode: Type '"bg"' is not assignable/],
  ['a query without its expression', (d) => { delete panel(d, 3).targets[0].expr; },
    /^panel 3 "Failing requests": targets\[0\]: Property 'expr' is missing/],
  ['a panel type Grafana does not ship', (d) => { panel(d, 12).type = 'graph'; },
    /^panel 12 "Upstream calls by upstream and outcome": type "graph" is not a core Grafana panel type/],
  ['a row without collapsed', (d) => { delete panel(d, 9).collapsed; },
    /^panel 9 "Traffic": Property 'collapsed' is missing/],
  ["a variable's current value without text and value", (d) => { d.templating.list[1].current = {}; },
    /^variable "instance": current: Type '\{\}' is missing the following properties .*: text, value/],
  ['no schemaVersion', (d) => { delete d.schemaVersion; }, /^dashboard: .*Property 'schemaVersion' is missing/],
];

const RULE_MUTATIONS = [
  ['an undeclared variable', (d) => { panel(d, 10).targets[0].expr = 'sum(rate(gate_requests_total{tenant=~"$tenant"}[5m]))'; },
    /^panel 10 "Requests by method": \$tenant is not a variable declared in templating$/],
  ['a variable read before it is declared', (d) => { d.templating.list.reverse(); },
    /^variable "instance": \$job is not a variable declared in templating before it$/],
  ['a variable nothing reads', (d) => { d.templating.list.push({ ...structuredClone(d.templating.list[0]), name: 'tenant' }); },
    /^variable "tenant": no query, title or link reads it$/],
  ['an overlapping panel', (d) => { panel(d, 11).gridPos.x = 6; },
    /^panel 11 "Requests by outcome": gridPos \{"h":8,"w":12,"x":6,"y":11\} overlaps panel 10 "Requests by method"$/],
  ['a panel past the 24 columns', (d) => { panel(d, 55).gridPos.w = 9; },
    /^panel 55 "Open file descriptors": gridPos .* is not inside the 24 columns/],
  ['a row that does not span the width', (d) => { panel(d, 14).gridPos.w = 12; },
    /^panel 14 "Outcomes, errors and refusals": a row's gridPos is x 0, w 24, h 1/],
  ['two panels with one id', (d) => { panel(d, 13).id = 12; },
    /^panel 12 "Upstream calls per request": id 12 is also panel 12 "Upstream calls by upstream and outcome"'s$/],
  ['a datasource that is not the input', (d) => { panel(d, 20).datasource = { type: 'prometheus', uid: 'prometheus' }; },
    /^panel 20 "Request latency p50 \/ p99 by method": datasource .* is not \$\{NAME\} of a datasource input of __inputs$/],
  ['an input not declared', (d) => { panel(d, 21).targets[0].datasource.uid = '${DS_LOKI}'; },
    /^panel 21 "Upstream latency p50 \/ p99": targets\[0\]: datasource .* is not \$\{NAME\} of a datasource input/],
  ['a panel type not in __requires', (d) => { d.__requires = d.__requires.filter((r) => r.id !== 'table'); },
    /^panel 8 "Instances": panel type "table" is not in __requires$/],
  ['a schemaVersion newer than Grafana 12.4', (d) => { d.schemaVersion = 99; },
    /^dashboard: schemaVersion 99 is not an integer from 38 \(Grafana 10\.0\) to 42/],
];

describe('the checks fail on a mutated dashboard, naming it and the panel', () => {
  test('the types', () => {
    const entries = TYPE_MUTATIONS.map(([what, mutate]) => {
      const dashboard = gate();
      mutate(dashboard);
      return { name: `${GATE} (${what})`, dashboard };
    });
    const problems = typeProblems(entries);
    TYPE_MUTATIONS.forEach(([what, , expected], i) => {
      const name = entries[i].name;
      const found = problems.get(name);
      assert.ok(found.some((p) => p.startsWith(`${name}: `) && expected.test(p.slice(name.length + 2))), `${what}: ${found.join('\n')}`);
    });
  });

  for (const [what, mutate, expected] of RULE_MUTATIONS) {
    test(what, () => {
      const dashboard = gate();
      mutate(dashboard);
      const found = ruleProblems(GATE, dashboard);
      assert.ok(found.some((p) => p.startsWith(`${GATE}: `) && expected.test(p.slice(GATE.length + 2))), found.join('\n'));
    });
  }
});
